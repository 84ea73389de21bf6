//! A one-shot channel between the futures of the page's one thread: a value sent once, awaited
//! once. `Rc` and `RefCell`, not the atomics and locks of a channel meant for threads.

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

struct Slot<T> {
    value: Option<T>,
    /// The receiver waiting for the value.
    waker: Option<Waker>,
    /// The sender still exists.
    open: bool,
}

/// Sends the value; dropped unsent, the receiver hears [`Canceled`].
pub struct Sender<T>(Rc<RefCell<Slot<T>>>);

/// The value, once sent.
pub struct Receiver<T>(Rc<RefCell<Slot<T>>>);

/// The sender was dropped without sending.
#[derive(Debug)]
pub struct Canceled;

pub fn channel<T>() -> (Sender<T>, Receiver<T>) {
    let slot = Rc::new(RefCell::new(Slot {
        value: None,
        waker: None,
        open: true,
    }));
    (Sender(slot.clone()), Receiver(slot))
}

impl<T> Sender<T> {
    /// Sends `value` (dropped with the channel when the receiver is gone).
    pub fn send(self, value: T) {
        self.0.borrow_mut().value = Some(value);
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        let waker = {
            let mut slot = self.0.borrow_mut();
            slot.open = false;
            slot.waker.take()
        };
        if let Some(w) = waker {
            w.wake();
        }
    }
}

impl<T> Future for Receiver<T> {
    type Output = Result<T, Canceled>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut slot = self.0.borrow_mut();
        match slot.value.take() {
            Some(v) => Poll::Ready(Ok(v)),
            None if !slot.open => Poll::Ready(Err(Canceled)),
            None => {
                slot.waker = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }
}
