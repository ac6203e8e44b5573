//! Work cut into shares, each run on a scoped thread of its own, the results in order:
//! what a `List` of many workloads has analysed (`pipeline`), and its fixes checked
//! (`pipeline::fix::checks`), apart from one another.

use std::ops::Range;

/// `work` on each share of `count` items cut into up to `threads` shares of about the
/// same size, each on a thread named `name`; the shares' results in order. One share
/// is run on this thread; a share whose thread cannot start is too. A panic in a
/// share goes on in the caller, as if it had run there.
pub fn in_shares<R: Send>(
    count: usize,
    threads: usize,
    name: &str,
    work: impl Fn(Range<usize>) -> R + Sync,
) -> Vec<R> {
    let size = count.div_ceil(threads.max(1)).max(1);
    let shares: Vec<Range<usize>> = (0..count)
        .step_by(size)
        .map(|from| from..(from + size).min(count))
        .collect();
    if shares.len() < 2 {
        return shares.into_iter().map(work).collect();
    }
    let work = &work;
    std::thread::scope(|scope| {
        let workers: Vec<_> = shares
            .into_iter()
            .map(|share| {
                let run = share.clone();
                let worker = std::thread::Builder::new()
                    .name(name.to_owned())
                    .spawn_scoped(scope, move || work(run));
                (share, worker)
            })
            .collect();
        workers
            .into_iter()
            .map(|(share, worker)| match worker {
                Ok(worker) => worker
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
                Err(_) => work(share),
            })
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_item_is_in_one_share_and_the_results_keep_their_order() {
        for (count, threads) in [(0, 2), (1, 2), (7, 1), (7, 2), (7, 3), (32, 4), (5, 9)] {
            let shares = in_shares(count, threads, "test", |share| share.collect::<Vec<_>>());
            assert!(
                shares.len() <= threads.max(1),
                "{count} {threads}: {shares:?}"
            );
            let items: Vec<usize> = shares.into_iter().flatten().collect();
            assert_eq!(items, (0..count).collect::<Vec<_>>(), "{count} {threads}");
        }
    }

    #[test]
    fn a_panic_in_a_share_reaches_the_caller() {
        let caught = std::panic::catch_unwind(|| {
            in_shares(8, 2, "test", |share| assert!(!share.contains(&6), "item 6"))
        });
        assert!(caught.is_err());
    }
}
