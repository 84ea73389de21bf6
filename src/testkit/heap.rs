//! Heap accounting for tests: the test binary's allocator counts the live bytes each thread
//! allocated, so a test can weigh what one value holds by dropping it.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// The system allocator, counting.
pub(crate) struct Counting;

thread_local! {
    static LIVE: Cell<isize> = const { Cell::new(0) };
    /// The most `LIVE` was since the last [`peak_from_here`].
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

fn add(n: isize) {
    // `try_with`: the thread's counters may already be gone while the thread ends.
    let _ = LIVE.try_with(|c| {
        let live = c.get() + n;
        c.set(live);
        let _ = PEAK.try_with(|p| p.set(p.get().max(live)));
    });
}

/// Starts watching the peak: [`peak_above`] then tells how far above today's live bytes this
/// thread's heap went.
pub(crate) fn peak_from_here() -> isize {
    let live = LIVE.with(Cell::get);
    PEAK.with(|p| p.set(live));
    live
}

/// How far this thread's heap peaked above `base` (from [`peak_from_here`]).
pub(crate) fn peak_above(base: isize) -> usize {
    usize::try_from(PEAK.with(Cell::get) - base).unwrap_or(0)
}

// SAFETY: every call is passed on to `System` unchanged; the counting touches no allocation.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        add(layout.size() as isize);
        // SAFETY: the caller's contract, passed on.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        add(-(layout.size() as isize));
        // SAFETY: the caller's contract, passed on.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        add(new_size as isize - layout.size() as isize);
        // SAFETY: the caller's contract, passed on.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// Bytes `value` holds on the heap (what dropping it gives back on this thread).
pub(crate) fn held_by<T>(value: T) -> usize {
    let before = LIVE.with(Cell::get);
    drop(value);
    usize::try_from(before - LIVE.with(Cell::get)).unwrap_or(0)
}
