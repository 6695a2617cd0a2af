//! Which columns a table shows and how wide, from what is on screen: ids
//! as wide as the widest id shown, relative times never cut, the columns
//! that take the room left (a title, an error) sharing it; and when they
//! do not all fit, the columns that matter least dropped first (a compact
//! column standing in for a wide one where it has one).

use crate::console::kit::column::{Column, Size};

/// Columns are one space apart.
pub const SPACING: u16 = 1;

/// The columns shown, in order, each with its width. `natural[i]` is the
/// widest of column `i`'s header and cells on screen; `table` is the
/// table's whole width (for columns shown only on tables so wide) and
/// `room` the columns' (inside its border).
pub fn plan(columns: &[Column], natural: &[u16], table: u16, room: u16) -> Vec<(usize, u16)> {
    let natural = |i: usize| natural.get(i).copied().unwrap_or(0);
    let need = |i: usize| match columns[i].size {
        Size::Fixed(width) => width,
        Size::Content => natural(i),
        Size::Fill { min, .. } => min.min(natural(i)),
    };
    let mut shown: Vec<usize> = (0..columns.len())
        .filter(|&i| columns[i].shown_at(table) && columns[i].stands_in_for.is_none())
        .collect();
    // A column with nothing to show (no row is new) takes no room at all.
    let total = |shown: &[usize]| -> u32 {
        let cells: u32 = shown.iter().map(|&i| u32::from(need(i))).sum();
        let columns = shown.iter().filter(|&&i| need(i) > 0).count();
        cells + u32::from(SPACING) * columns.saturating_sub(1) as u32
    };
    while total(&shown) > u32::from(room) {
        // The one that matters least; of equals, the rightmost.
        let Some(at) = shown
            .iter()
            .enumerate()
            .filter(|(_, i)| columns[**i].drop > 0)
            .max_by_key(|(_, i)| (columns[**i].drop, **i))
            .map(|(at, _)| at)
        else {
            break;
        };
        let dropped = shown.remove(at);
        let standing_in = (0..columns.len()).find(|&i| {
            columns[i].stands_in_for == Some(columns[dropped].header)
                && columns[i].shown_at(table)
                && !shown.contains(&i)
        });
        if let Some(compact) = standing_in {
            shown.insert(at, compact);
        }
    }
    let mut widths: Vec<u16> = shown.iter().map(|&i| need(i)).collect();
    // What the fixed and content columns leave to the filling ones.
    let fills: Vec<usize> = (0..shown.len())
        .filter(|&at| matches!(columns[shown[at]].size, Size::Fill { .. }))
        .collect();
    let spaced = widths.iter().filter(|width| **width > 0).count();
    let taken: u32 = (0..shown.len())
        .filter(|at| !fills.contains(at))
        .map(|at| u32::from(widths[at]))
        .sum::<u32>()
        + u32::from(SPACING) * spaced.saturating_sub(1) as u32;
    let left = u32::from(room).saturating_sub(taken);
    let weight = |at: usize| match columns[shown[at]].size {
        Size::Fill { weight, .. } => u32::from(weight.max(1)),
        _ => 1,
    };
    let weights: Vec<u32> = fills.iter().map(|&at| weight(at)).collect();
    let least: Vec<u32> = fills.iter().map(|&at| u32::from(widths[at])).collect();
    let most: Vec<u32> = fills
        .iter()
        .zip(&least)
        .map(|(&at, least)| u32::from(natural(shown[at])).max(*least))
        .collect();
    for (n, width) in share(&weights, &least, &most, left).into_iter().enumerate() {
        widths[fills[n]] = u16::try_from(width).unwrap_or(u16::MAX);
    }
    // Too narrow for even the columns kept: the last ones are cut, then
    // left out; a column with nothing to show (no row is new) is left out.
    let mut left = room;
    let mut planned = Vec::new();
    for (at, &i) in shown.iter().enumerate() {
        let width = widths[at].min(left);
        if width == 0 {
            continue;
        }
        planned.push((i, width));
        left = left.saturating_sub(width).saturating_sub(SPACING);
    }
    planned
}

/// `room` shared among columns of these weights: each at least its
/// `least` (as far as the room goes) and, while the room is short, at
/// most its `most` (what its widest cell needs); the room beyond that, by
/// weight too.
fn share(weights: &[u32], least: &[u32], most: &[u32], room: u32) -> Vec<u32> {
    let count = weights.len();
    if least.iter().sum::<u32>() >= room {
        return from_the_left(least, room);
    }
    let wanted: u32 = most.iter().sum();
    let bounded = room.min(wanted);
    // Shares by weight, where those whose share is more than they want
    // are held at what they want (the rest share what that leaves), and
    // those whose share is less than their least get their least for good.
    let mut held_low = vec![false; count];
    let mut given = loop {
        let mut held_high = vec![false; count];
        let (free, left) = loop {
            let free: Vec<usize> = (0..count).filter(|&n| !held_low[n] && !held_high[n]).collect();
            let held: u32 = (0..count)
                .map(|n| match (held_low[n], held_high[n]) {
                    (true, _) => least[n],
                    (false, true) => most[n],
                    (false, false) => 0,
                })
                .sum();
            let left = bounded.saturating_sub(held);
            let total: u32 = free.iter().map(|&n| weights[n]).sum::<u32>().max(1);
            let over: Vec<usize> = free
                .iter()
                .copied()
                .filter(|&n| share_of(left, weights[n], total) > most[n])
                .collect();
            if over.is_empty() {
                break (free, left);
            }
            over.iter().for_each(|&n| held_high[n] = true);
        };
        let total: u32 = free.iter().map(|&n| weights[n]).sum::<u32>().max(1);
        let under: Vec<usize> = free
            .iter()
            .copied()
            .filter(|&n| share_of(left, weights[n], total) < least[n])
            .collect();
        if !under.is_empty() {
            under.iter().for_each(|&n| held_low[n] = true);
            continue;
        }
        let mut given: Vec<u32> = (0..count)
            .map(|n| match (held_low[n], held_high[n]) {
                (true, _) => least[n],
                (false, true) => most[n],
                (false, false) => share_of(left, weights[n], total),
            })
            .collect();
        // What rounding left over, one each to the heaviest first.
        let mut rest = left.saturating_sub(free.iter().map(|&n| given[n]).sum::<u32>());
        let mut order = free.clone();
        order.sort_by_key(|&n| (std::cmp::Reverse(weights[n]), n));
        for n in order {
            if rest > 0 && given[n] < most[n] {
                given[n] += 1;
                rest -= 1;
            }
        }
        break given;
    };
    let extra = room.saturating_sub(given.iter().sum());
    hand_out(&mut given, weights, extra);
    given
}

/// Not even the least of each: as far as `room` goes, from the left.
fn from_the_left(least: &[u32], room: u32) -> Vec<u32> {
    let mut left = room;
    least
        .iter()
        .map(|least| {
            let given = (*least).min(left);
            left -= given;
            given
        })
        .collect()
}

/// Room beyond what every cell needs: by weight, the remainder to the
/// heaviest.
fn hand_out(given: &mut [u32], weights: &[u32], extra: u32) {
    let total: u32 = weights.iter().sum();
    if extra > 0 && total > 0 {
        let mut handed = 0;
        for (n, weight) in weights.iter().enumerate() {
            let share = extra * weight / total;
            given[n] += share;
            handed += share;
        }
        if let Some(heaviest) = (0..weights.len()).max_by_key(|&n| (weights[n], std::cmp::Reverse(n))) {
            given[heaviest] += extra - handed;
        }
    }
}

/// `left` by weight: this weight's part of `total`.
fn share_of(left: u32, weight: u32, total: u32) -> u32 {
    u32::try_from(u64::from(left) * u64::from(weight) / u64::from(total.max(1))).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn widths(columns: &[Column], natural: &[u16], room: u16) -> Vec<(&'static str, u16)> {
        plan(columns, natural, room + 2, room)
            .into_iter()
            .map(|(i, width)| (columns[i].header, width))
            .collect()
    }

    #[test]
    fn ids_and_times_are_as_wide_as_their_widest_cell_and_the_title_takes_the_rest() {
        let columns = [
            Column::content("ID"),
            Column::fill("TITLE", 3, 12),
            Column::content("AGO"),
        ];
        // Three-digit ids, "29d 1h ago": the title has all the rest.
        assert_eq!(
            widths(&columns, &[3, 40, 10], 60),
            [("ID", 3), ("TITLE", 45), ("AGO", 10)]
        );
        // A title too long for the room is the one cut, never the time.
        assert_eq!(
            widths(&columns, &[3, 90, 10], 40),
            [("ID", 3), ("TITLE", 25), ("AGO", 10)]
        );
    }

    #[test]
    fn narrow_tables_drop_what_matters_least_first_and_keep_what_matters() {
        let columns = [
            Column::content("TIME (UTC)").drops(3),
            Column::content("AGO"),
            Column::content("TRIGGER").drops(2),
            Column::content("STATUS"),
            Column::content("RECIPIENTS").drops(1),
            Column::fill("ERROR", 1, 20),
        ];
        let natural = [16, 10, 13, 9, 14, 60];
        let shown = |room| -> Vec<&str> {
            widths(&columns, &natural, room)
                .into_iter()
                .map(|(header, _)| header)
                .collect()
        };
        assert_eq!(
            shown(200),
            ["TIME (UTC)", "AGO", "TRIGGER", "STATUS", "RECIPIENTS", "ERROR"]
        );
        assert_eq!(shown(78), ["AGO", "TRIGGER", "STATUS", "RECIPIENTS", "ERROR"]);
        assert_eq!(shown(60), ["AGO", "STATUS", "RECIPIENTS", "ERROR"]);
        assert_eq!(shown(40), ["AGO", "STATUS", "ERROR"]);
        // The failure takes what is left, and every time is whole.
        assert_eq!(
            widths(&columns, &natural, 78)[4],
            ("ERROR", 78 - 10 - 13 - 9 - 14 - 4)
        );
    }

    #[test]
    fn a_compact_column_stands_in_for_a_wide_one_once_it_is_dropped() {
        let columns = [
            Column::content("ID"),
            Column::fill("TITLE", 1, 12),
            Column::content("NEXT DELIVERY (UTC)").drops(2),
            Column::content("NEXT").drops(1).instead_of("NEXT DELIVERY (UTC)"),
        ];
        let natural = [3, 30, 29, 10];
        assert_eq!(
            widths(&columns, &natural, 80),
            [("ID", 3), ("TITLE", 46), ("NEXT DELIVERY (UTC)", 29)]
        );
        assert_eq!(
            widths(&columns, &natural, 40),
            [("ID", 3), ("TITLE", 25), ("NEXT", 10)]
        );
        assert_eq!(widths(&columns, &natural, 20), [("ID", 3), ("TITLE", 16)]);
    }

    #[test]
    fn filling_columns_share_by_weight_and_no_room_means_no_panic() {
        let columns = [Column::fill("A", 3, 5), Column::fill("B", 1, 5)];
        assert_eq!(widths(&columns, &[100, 100], 41), [("A", 30), ("B", 10)]);
        // Short content: each its own, then the rest by weight.
        assert_eq!(widths(&columns, &[4, 4], 21), [("A", 13), ("B", 7)]);
        // A short column gives what it does not need to the others, even to
        // one held at its least at first.
        let columns = [
            Column::content("ID"),
            Column::fill("TITLE", 3, 16),
            Column::fill("TARGET", 2, 16),
            Column::fill("SCHEDULE", 2, 24),
        ];
        assert_eq!(
            widths(&columns, &[2, 13, 35, 9], 45),
            [("ID", 2), ("TITLE", 13), ("TARGET", 18), ("SCHEDULE", 9)]
        );
        for room in 0..12 {
            let planned = widths(&columns, &[100, 100], room);
            let used: u16 = planned.iter().map(|(_, width)| width + 1).sum();
            assert!(used <= room + 1, "{room}: {planned:?}");
        }
    }
}
