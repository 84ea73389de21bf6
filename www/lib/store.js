// Remembers the last server URL the dashboard connected to. (The tasks themselves are the client's:
// `persist: true` stores them and `client.resume()` hands them back after a reload.)

const KEY = "mcp-task-dashboard:v1:last-server";

/** @returns {string} */
export function lastServer() {
  try {
    return localStorage.getItem(KEY) ?? "";
  } catch {
    return "";
  }
}

/** @param {string} url */
export function rememberServer(url) {
  try {
    localStorage.setItem(KEY, url);
  } catch {
    // storage disabled: the URL is simply not remembered
  }
}
