// Compiled (never run) with usage.ts: the React bindings' types carry each call's result type.
import { createElement } from "react";
import { McpClientProvider, useCallTool, useMcpClient, useTask, type CallToolState, type McpClientState, type TaskState } from "mcp-task-client/react";
import type { CallToolResult, JsonObject, McpTaskClient, TaskHandle } from "mcp-task-client";

interface Report {
  total: number;
}

export function ReportView(handle: TaskHandle<CallToolResult<Report>>, client: McpTaskClient) {
  const shared: McpClientState = useMcpClient();
  if (shared.status === "connected") console.log(shared.client.dialect);
  if (shared.status === "error") console.log(shared.error.kind);

  const report: CallToolState<Report> = useCallTool<Report>("report");
  const total: number | undefined = report.result?.structuredContent?.total;
  // @ts-expect-error — `total` is a number
  const wrong: string | undefined = report.result?.structuredContent?.total;
  const pending: boolean = report.isPending;
  void report.start({ region: "eu" }, { ttlMs: 60_000 }).then((h) => h?.id);
  void report.startAsync({ region: "eu" }).then((h: TaskHandle<CallToolResult<Report>>) => h.result());
  if (report.done?.outcome?.kind === "result") console.log(report.done.outcome.result.structuredContent?.total.toFixed());
  report.reset();

  // A handle's result type flows through; a task id defaults to a tool's CallToolResult.
  const byHandle: TaskState<CallToolResult<Report>> = useTask(handle);
  const byId: TaskState<CallToolResult> = useTask("task-1", { client });
  const custom: TaskState<JsonObject> = useTask<JsonObject>("task-2", { client, cancelOnUnmount: true });
  // @ts-expect-error — following by id needs the client
  useTask("task-3");
  console.log(total, wrong, pending, byHandle.result?.structuredContent?.total, byId.result?.content, custom.result);
  return createElement(McpClientProvider, { url: "https://host/mcp", options: { clientName: "app" } }, "child");
}
