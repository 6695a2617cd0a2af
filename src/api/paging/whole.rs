//! What a read of a whole list gives back, and what it may hold.
//!
//! [`Whole`] and [`Complete`] are made here alone, by a read that reached
//! the list's end with every row once, as many as the server's count said,
//! the count the same on every page: a function that takes one cannot be
//! handed part of a list. A read that fails that check ends with
//! [`Error::Incomplete`](super::super::Error::Incomplete) instead.
//!
//! [`Holding`] is the budget of bytes a command (or one load of the
//! console's) keeps of the lists it reads whole, and of the pages it has in
//! flight, shared by all of its reads.

use std::ops::Deref;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Every row of a list, each once, as many as the server's count said (or
/// what a read kept of every such row): only a read that checked so makes
/// one.
#[derive(Debug, Clone, PartialEq)]
pub struct Whole<T> {
    rows: Vec<T>,
}

impl<T> Whole<T> {
    /// Made by a read of this module's parent, once it checked the list.
    pub(super) fn checked(rows: Vec<T>) -> Whole<T> {
        Whole { rows }
    }

    /// The rows, to keep or change.
    pub fn into_vec(self) -> Vec<T> {
        self.rows
    }
}

impl<T> Deref for Whole<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        &self.rows
    }
}

impl<T> IntoIterator for Whole<T> {
    type Item = T;
    type IntoIter = std::vec::IntoIter<T>;

    fn into_iter(self) -> Self::IntoIter {
        self.rows.into_iter()
    }
}

impl<'a, T> IntoIterator for &'a Whole<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.rows.iter()
    }
}

/// A list streamed through to its end, whole: every row handed over once,
/// as many as its count said. Only a read that checked so makes one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[must_use]
pub struct Complete {
    rows: u64,
}

impl Complete {
    pub(super) fn checked(rows: u64) -> Complete {
        Complete { rows }
    }

    /// Rows handed over.
    pub fn rows(&self) -> u64 {
        self.rows
    }
}

/// What the list reads of one command hold, shared by all of them.
///
/// The bytes of rows kept from lists read whole (`--max-held-mib`): a read
/// that would take them past the limit stops with an error. A row is
/// counted as its share of the page's JSON as it came plus the size of the
/// value it was read into, which is close to what it takes in memory once
/// read.
///
/// And the pages in flight or waiting their turn, which together hold no
/// more than one answer may (`--max-answer-mib`): each waits for room
/// before it is asked for, however many lists are read at once. Room goes
/// first come, first served, and a list's pages ask for it in order, so
/// the first page of each list always gets it before its later ones: reads
/// that share it always move on.
#[derive(Debug)]
pub struct Holding {
    limit: u64,
    held: AtomicU64,
    /// Room for pages, in MiB.
    in_flight: Arc<Semaphore>,
    /// The room in all, in MiB.
    room: u32,
}

/// Room for one page in flight, given back when it is dropped (once the
/// page is read).
pub(super) type Room = Option<OwnedSemaphorePermit>;

const MIB: u64 = 1024 * 1024;

impl Holding {
    /// A budget of `limit` bytes held and `answers` bytes of pages in flight.
    pub fn new(limit: u64, answers: u64) -> Arc<Holding> {
        let room = u32::try_from(answers.div_ceil(MIB).max(1)).unwrap_or(u32::MAX);
        Arc::new(Holding {
            limit: limit.max(1),
            held: AtomicU64::new(0),
            in_flight: Arc::new(Semaphore::new(room as usize)),
            room,
        })
    }

    /// Waits for room for a page of at most `bytes` (never more than all
    /// the room there is).
    pub(super) async fn room_for(&self, bytes: u64) -> Room {
        let wanted = u32::try_from(bytes.div_ceil(MIB).max(1)).unwrap_or(u32::MAX);
        // The semaphore is never closed: an error cannot come, and without
        // room the page simply goes unbounded by it.
        self.in_flight
            .clone()
            .acquire_many_owned(wanted.min(self.room))
            .await
            .ok()
    }

    /// The most bytes held at once.
    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// Bytes held now.
    pub fn held(&self) -> u64 {
        self.held.load(Ordering::Relaxed)
    }

    /// Counts `bytes` in; `false`, counting nothing, when they would take
    /// it past its limit.
    pub(crate) fn take(&self, bytes: u64) -> bool {
        self.held
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |held| {
                held.checked_add(bytes).filter(|&after| after <= self.limit)
            })
            .is_ok()
    }

    /// Counts `bytes` out again: rows taken and then let go (a read that
    /// failed, or was started again).
    pub(crate) fn give_back(&self, bytes: u64) {
        let _ = self
            .held
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |held| {
                Some(held.saturating_sub(bytes))
            });
    }
}

/// What a row kept from a list holds besides its own size (its text and
/// its lists): what a read that keeps a compact form of each row
/// ([`super::Client::gather`]) charges against the command's budget, with
/// the row's size, rather than the server's object it was made from.
pub trait Kept {
    fn heap_bytes(&self) -> u64;

    /// The row's size and what it holds.
    fn held_bytes(&self) -> u64 {
        (std::mem::size_of_val(self) as u64).saturating_add(self.heap_bytes())
    }
}

impl Kept for String {
    fn heap_bytes(&self) -> u64 {
        self.capacity() as u64
    }
}

impl Kept for Box<str> {
    fn heap_bytes(&self) -> u64 {
        self.len() as u64
    }
}

impl<T: Kept> Kept for Option<T> {
    fn heap_bytes(&self) -> u64 {
        self.as_ref().map_or(0, Kept::heap_bytes)
    }
}

impl<T: Kept> Kept for Vec<T> {
    fn heap_bytes(&self) -> u64 {
        let spare = self.capacity().saturating_sub(self.len()) * std::mem::size_of::<T>();
        self.iter()
            .map(Kept::held_bytes)
            .fold(spare as u64, u64::saturating_add)
    }
}

impl<A: Kept, B: Kept> Kept for (A, B) {
    fn heap_bytes(&self) -> u64 {
        self.0.heap_bytes().saturating_add(self.1.heap_bytes())
    }
}

impl<A: Kept, B: Kept, C: Kept> Kept for (A, B, C) {
    fn heap_bytes(&self) -> u64 {
        self.0
            .heap_bytes()
            .saturating_add(self.1.heap_bytes())
            .saturating_add(self.2.heap_bytes())
    }
}

/// Values that hold nothing besides themselves.
macro_rules! kept_in_place {
    ($($kind:ty),+) => {
        $(impl Kept for $kind {
            fn heap_bytes(&self) -> u64 {
                0
            }
        })+
    };
}

kept_in_place!(bool, i64, u64, chrono::DateTime<chrono::Utc>);

/// What `rows` rows of a page of `page_rows` rows and `page_bytes` bytes
/// cost once read into values of `size` bytes each.
pub(super) fn cost(rows: usize, page_rows: usize, page_bytes: u64, size: usize) -> u64 {
    if rows == 0 {
        return 0;
    }
    let share = page_bytes as u128 * rows as u128 / page_rows.max(1) as u128;
    let share = u64::try_from(share).unwrap_or(u64::MAX);
    share.saturating_add((rows as u64).saturating_mul(size as u64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_holding_refuses_what_would_take_it_past_its_limit() {
        let holding = Holding::new(100, MIB);
        assert!(holding.take(60));
        assert!(!holding.take(41), "past the limit");
        assert_eq!(holding.held(), 60, "a refusal counts nothing");
        assert!(holding.take(40));
        holding.give_back(70);
        assert_eq!(holding.held(), 30);
        holding.give_back(1000);
        assert_eq!(holding.held(), 0);
        assert!(!holding.take(u64::MAX), "no overflow");
    }

    #[tokio::test]
    async fn pages_in_flight_share_the_room_of_one_answer() {
        let holding = Holding::new(100, 8 * MIB);
        let first = holding.room_for(5 * MIB).await;
        let second = holding.room_for(3 * MIB - 1).await;
        assert_eq!(holding.in_flight.available_permits(), 0);
        let third = tokio::spawn({
            let holding = holding.clone();
            async move { holding.room_for(1).await.is_some() }
        });
        tokio::task::yield_now().await;
        assert!(!third.is_finished(), "no room until a page is read");
        drop(first);
        assert!(third.await.unwrap());
        drop(second);
        // A page larger than all the room takes all of it.
        assert!(holding.room_for(100 * MIB).await.is_some());
    }

    #[test]
    fn a_kept_row_costs_its_size_and_what_it_holds() {
        let text = String::with_capacity(40);
        assert_eq!(text.held_bytes(), 24 + 40);
        let pair = (String::from("ab"), Some(String::with_capacity(10)));
        assert_eq!(pair.held_bytes(), std::mem::size_of_val(&pair) as u64 + 2 + 10);
        let mut list: Vec<i64> = Vec::with_capacity(4);
        list.push(1);
        assert_eq!(list.held_bytes(), 24 + 4 * 8);
    }

    #[test]
    fn a_row_costs_its_share_of_the_page_and_its_size() {
        assert_eq!(cost(0, 10, 1000, 50), 0);
        assert_eq!(cost(5, 10, 1000, 50), 500 + 250);
        assert_eq!(cost(3, 0, 90, 8), 270 + 24);
        assert_eq!(cost(usize::MAX, 1, u64::MAX, usize::MAX), u64::MAX);
    }
}
