//! The time axis of a panel: linear where the events spread over it, broken where a long
//! stretch with no event in it (a grace period of 1,800 s after a 5-second shutdown)
//! would otherwise squeeze every event into the first pixels of the axis.
//!
//! One scale runs through every piece of a broken axis, so that bars keep lengths a
//! reader can compare; each cut takes a fixed width, is drawn as a break and says how
//! much time it leaves out. A bar that runs through a cut is drawn through the break.

use crate::time::Millis;

/// At most this many cuts: more would turn the axis into a list of moments.
const MAX_CUTS: usize = 2;
/// A stretch with no event is cut when it is at least this long (below it a linear axis
/// still reads well)...
const MIN_CUT: Millis = Millis(60_000);
/// ...and at least a quarter of the axis, and the cuts together leave out at least
/// three quarters of it: then the events would crowd into what is left.
const CUT_SHARE: i64 = 4;
const CUTS_SHARE: (i64, i64) = (3, 4);
/// The latest time drawn where it falls: a quarter of the range of `Millis`.
const LAST: Millis = Millis(i64::MAX / 4);
/// The shortest axis drawn, so that a pod ready at once still gets a readable scale.
const MIN_END: Millis = Millis(2_000);

/// One stretch of time the axis shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Piece {
    /// Where it starts.
    pub from: Millis,
    /// Where it ends.
    pub to: Millis,
}

impl Piece {
    fn length(self) -> Millis {
        self.to - self.from
    }
}

/// How a panel's times are laid along its axis.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scale {
    /// The stretches shown, in order; between two of them the axis is cut.
    pieces: Vec<Piece>,
    /// The room left on each side of a cut.
    margin: Millis,
}

impl Scale {
    /// The axis for a panel whose events and bar ends fall at `times`: from 0 to a
    /// margin past the last, cut where a stretch with no event in it dominates.
    pub fn fit(times: impl IntoIterator<Item = Millis>) -> Scale {
        // Times beyond a quarter of the range of `Millis` (a grace period of 2^63
        // seconds) are drawn there, so that margins and ticks past them cannot
        // saturate.
        let mut times: Vec<Millis> = times
            .into_iter()
            .map(|at| at.clamp(Millis::ZERO, LAST))
            .chain([Millis::ZERO])
            .collect();
        times.sort_unstable();
        times.dedup();
        let last = *times.last().expect("0 is always there");
        // The gaps to cut: the largest empty stretches, when together they dominate.
        let mut gaps: Vec<(Millis, Millis)> = times.windows(2).map(|w| (w[0], w[1])).collect();
        gaps.sort_by_key(|(from, to)| std::cmp::Reverse(*to - *from));
        let mut cuts: Vec<(Millis, Millis)> = gaps
            .into_iter()
            .take(MAX_CUTS)
            .filter(|(from, to)| {
                let length = *to - *from;
                length >= MIN_CUT && length.0.saturating_mul(CUT_SHARE) >= last.0
            })
            .collect();
        let cut = cuts
            .iter()
            .fold(Millis::ZERO, |sum, (from, to)| sum + (*to - *from));
        if cut.0.saturating_mul(CUTS_SHARE.1) < last.0.saturating_mul(CUTS_SHARE.0) {
            cuts.clear();
        }
        let shown = last - cut;
        if cuts.is_empty() {
            let padded = last.0.saturating_add(last.0 / 8).saturating_add(500);
            let end = Millis(padded.max(MIN_END.0));
            return Scale {
                pieces: vec![Piece {
                    from: Millis::ZERO,
                    to: end,
                }],
                margin: Millis::ZERO,
            };
        }
        cuts.sort_unstable();
        // Each cluster of events gets a margin on both sides, the same for all, so
        // that marks at a cut's edges are not drawn on the break.
        let margin = margin(shown);
        let mut pieces = Vec::new();
        let mut from = Millis::ZERO;
        for (before, after) in cuts {
            pieces.push(Piece {
                from,
                to: before + margin,
            });
            from = after.saturating_sub(margin);
        }
        pieces.push(Piece {
            from,
            to: last + margin,
        });
        Scale { pieces, margin }
    }

    /// Whether a time can be drawn where it falls: beyond a quarter of the range of
    /// `Millis`, [`Scale::fit`] draws it at that quarter, which is not where it is.
    pub fn draws(at: Millis) -> bool {
        at <= LAST
    }

    /// The stretches shown.
    pub fn pieces(&self) -> &[Piece] {
        &self.pieces
    }

    /// The end of the axis.
    pub fn end(&self) -> Millis {
        self.pieces.last().map_or(MIN_END, |piece| piece.to)
    }

    /// The stretches left out, in order: where each cut starts and ends.
    pub fn cuts(&self) -> impl Iterator<Item = (Millis, Millis)> + '_ {
        self.pieces.windows(2).map(|w| (w[0].to, w[1].from))
    }

    /// The time the axis shows, cuts left out.
    pub fn shown(&self) -> Millis {
        self.pieces
            .iter()
            .fold(Millis::ZERO, |sum, piece| sum + piece.length())
    }

    /// Where `at` falls on an axis `width` units long whose cuts take `gap` units each,
    /// from 0 to `width`. A time inside a cut falls in the middle of its break; a time
    /// past the end, at the end.
    pub fn position(&self, at: Millis, width: f64, gap: f64) -> f64 {
        let cuts = self.pieces.len().saturating_sub(1) as f64;
        let per_ms = (width - cuts * gap).max(1.0) / (self.shown().0.max(1) as f64);
        let mut offset = 0.0;
        for (index, piece) in self.pieces.iter().enumerate() {
            if at < piece.from {
                return if index == 0 { 0.0 } else { offset - gap / 2.0 };
            }
            if at <= piece.to {
                return offset + (at - piece.from).0 as f64 * per_ms;
            }
            offset += piece.length().0 as f64 * per_ms + gap;
        }
        width
    }

    /// Where the break of cut `index` starts and ends on the axis of [`Scale::position`].
    pub fn break_at(&self, index: usize, width: f64, gap: f64) -> (f64, f64) {
        let before = self.pieces[index].to;
        let start = self.position(before, width, gap);
        (start, start + gap)
    }

    /// The times to label on the axis, at most about `labels` of them: multiples of a
    /// round interval in each piece, and the first moment of a piece that holds none.
    pub fn ticks(&self, labels: i64) -> Vec<Millis> {
        let interval = tick_interval(self.shown(), labels.max(1));
        let mut ticks = Vec::new();
        for (index, piece) in self.pieces.iter().enumerate() {
            let mut tick = piece.from.round_up_from(Millis::ZERO, interval);
            let before = ticks.len();
            while tick <= piece.to {
                ticks.push(tick);
                tick = tick + interval;
            }
            if index > 0 && ticks.len() == before {
                // No round time falls in a short piece: label its first event.
                ticks.push((piece.from + self.margin).min(piece.to));
            }
        }
        ticks
    }
}

/// The room left on each side of a cut: a sixteenth of the time shown, in whole half
/// seconds.
fn margin(shown: Millis) -> Millis {
    Millis(((shown.0 / 16).max(500) + 499) / 500 * 500)
}

/// A tick interval that puts at most `max_ticks` labelled ticks on `length`.
fn tick_interval(length: Millis, max_ticks: i64) -> Millis {
    const STEPS: [i64; 12] = [
        500, 1000, 2000, 5000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000, 600_000, 1_800_000,
    ];
    STEPS
        .iter()
        .copied()
        .find(|step| length.0 / step <= max_ticks)
        .map_or_else(
            // Beyond the steps (an absurd grace period): whole hours, still few ticks.
            || Millis((length.0 / max_ticks.max(1) / 3_600_000 + 1).saturating_mul(3_600_000)),
            Millis,
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secs(values: &[i64]) -> Vec<Millis> {
        values.iter().map(|s| Millis::secs(*s)).collect()
    }

    #[test]
    fn events_spread_over_the_axis_keep_it_linear() {
        let scale = Scale::fit(secs(&[0, 5, 10, 30, 35]));
        assert_eq!(scale.pieces().len(), 1);
        assert_eq!(scale.end(), Millis(35_000 + 4_375 + 500));
        let at = scale.position(Millis::secs(10), 100.0, 10.0);
        assert!((at - 100.0 * 10.0 / 39.875).abs() < 1e-9);
    }

    #[test]
    fn a_long_empty_grace_period_is_cut_out() {
        // Cassandra: SIGTERM at 0, exit and endpoints at 5 s, SIGKILL due at 1800 s.
        let scale = Scale::fit(secs(&[0, 5, 1800]));
        let cuts: Vec<_> = scale.cuts().collect();
        assert_eq!(cuts, [(Millis(5_500), Millis(1_799_500))]);
        assert_eq!(scale.end(), Millis(1_800_500));
        assert_eq!(scale.shown(), Millis(6_500));
        // One scale on both sides of the break: 1 s is 100 units everywhere.
        let (width, gap) = (670.0, 20.0);
        let second = |at: i64| {
            scale.position(Millis(at + 1000), width, gap) - scale.position(Millis(at), width, gap)
        };
        assert!((second(1000) - 100.0).abs() < 1e-9);
        assert!((second(1_799_500) - 100.0).abs() < 1e-9);
        // The break sits between the pieces; a time inside it falls in its middle.
        assert_eq!(scale.break_at(0, width, gap), (550.0, 570.0));
        assert_eq!(scale.position(Millis::secs(900), width, gap), 560.0);
        assert_eq!(scale.position(Millis::secs(1800), width, gap), 620.0);
        assert_eq!(scale.position(scale.end(), width, gap), width);
        // Each piece is labelled.
        let ticks = scale.ticks(8);
        assert!(ticks.contains(&Millis::ZERO) && ticks.contains(&Millis::secs(1800)));
        assert!(
            ticks
                .iter()
                .all(|t| scale.position(*t, width, gap) <= width)
        );
    }

    #[test]
    fn two_long_stretches_are_both_cut() {
        let scale = Scale::fit(secs(&[0, 2, 900, 1800]));
        assert_eq!(scale.cuts().count(), 2);
        let ticks = scale.ticks(8);
        assert!(ticks.contains(&Millis::secs(900)), "{ticks:?}");
    }

    #[test]
    fn short_stretches_are_never_cut() {
        // 59 s of nothing in a 60 s axis, 20 s in a 30 s grace period: still linear.
        assert_eq!(Scale::fit(secs(&[0, 1, 60])).cuts().count(), 0);
        assert_eq!(Scale::fit(secs(&[0, 5, 10, 30, 35])).cuts().count(), 0);
        // A 120 s grace period after 15 s of shutdown is cut.
        assert_eq!(Scale::fit(secs(&[0, 5, 15, 120])).cuts().count(), 1);
    }

    #[test]
    fn an_absurd_grace_period_is_drawn_within_range() {
        let scale = Scale::fit([Millis::ZERO, Millis::secs(5), Millis(i64::MAX)]);
        assert_eq!(scale.cuts().count(), 1);
        assert!(scale.end() > Millis(i64::MAX / 4) && scale.end() < Millis(i64::MAX / 2));
        let at = scale.position(Millis(i64::MAX), 100.0, 10.0);
        assert_eq!(at, 100.0);
        assert!(scale.ticks(8).iter().all(|t| *t <= scale.end()));
    }

    #[test]
    fn the_shortest_axis_is_two_seconds() {
        assert_eq!(Scale::fit([Millis::ZERO]).end(), MIN_END);
    }
}
