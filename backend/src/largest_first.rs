//! Parallel work in order of decreasing size: each of rayon's threads takes the largest item
//! not yet taken, so that a large kernel does not start last and finish alone while the
//! other threads are idle (longest-processing-time-first scheduling). Results keep the
//! items' order.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Applies `f` to every item of `items`, on rayon's threads when there are several items,
/// larger items (by `size`) first; returns the results in the items' order. Each item is
/// moved into `f`, so it is freed as soon as `f` is done with it.
pub fn map_largest_first<T, R, S, F>(items: Vec<T>, size: S, f: F) -> Vec<R>
where
    T: Send,
    R: Send,
    S: Fn(&T) -> usize,
    F: Fn(T) -> R + Sync,
{
    if items.len() <= 1 {
        // Starting rayon's pool costs more than a small item.
        return items.into_iter().map(f).collect();
    }
    let mut order: Vec<usize> = (0..items.len()).collect();
    // Stable: equal sizes keep their order.
    order.sort_by_key(|&i| std::cmp::Reverse(size(&items[i])));
    let slots: Vec<Mutex<Option<T>>> = items.into_iter().map(|t| Mutex::new(Some(t))).collect();
    let results: Vec<Mutex<Option<R>>> = slots.iter().map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    let work = || {
        loop {
            let k = next.fetch_add(1, Ordering::Relaxed);
            let Some(&i) = order.get(k) else { break };
            let item = take(&slots[i]);
            let r = f(item);
            *results[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
        }
    };
    let threads = rayon::current_num_threads().min(order.len());
    rayon::scope(|s| {
        for _ in 1..threads {
            s.spawn(|_| work());
        }
        work();
    });
    results
        .into_iter()
        .map(|r| {
            r.into_inner()
                .unwrap_or_else(|e| e.into_inner())
                .expect("every item was taken and finished")
        })
        .collect()
}

/// The item in `slot`, which exactly one taker finds there.
fn take<T>(slot: &Mutex<Option<T>>) -> T {
    slot.lock()
        .unwrap_or_else(|e| e.into_inner())
        .take()
        .expect("each item is taken once")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_keep_the_order_of_the_items() {
        let items: Vec<usize> = vec![3, 9, 1, 7, 7, 0, 12];
        let out = map_largest_first(items.clone(), |&x| x, |x| x * 10);
        assert_eq!(out, items.iter().map(|x| x * 10).collect::<Vec<_>>());
    }

    #[test]
    fn the_largest_items_start_first() {
        // On one thread the items run strictly from the largest down (equal sizes in their
        // order).
        let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        let started = Mutex::new(Vec::new());
        let items: Vec<(usize, char)> = vec![(2, 'a'), (5, 'b'), (1, 'c'), (5, 'd'), (9, 'e')];
        pool.install(|| map_largest_first(items, |&(n, _)| n, |(_, c)| started.lock().unwrap().push(c)));
        assert_eq!(started.into_inner().unwrap(), vec!['e', 'b', 'd', 'a', 'c']);
    }

    #[test]
    fn several_threads_finish_every_item() {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
        let items: Vec<u64> = (0..100).collect();
        let out = pool.install(|| map_largest_first(items, |&x| (x % 7) as usize, |x| x * x));
        assert_eq!(out, (0..100u64).map(|x| x * x).collect::<Vec<_>>());
    }

    #[test]
    fn zero_and_one_items() {
        assert!(map_largest_first(Vec::<u8>::new(), |_| 0, |x| x).is_empty());
        assert_eq!(map_largest_first(vec![5u8], |_| 0, |x| x + 1), vec![6]);
    }
}
