//! Solves `L x = b` for `L` the Laplacian of the players' graph weighted by
//! the games (the Hessian of the ml fit): players with one or two
//! opponents left are eliminated exactly first, then what remains (the
//! players with three or more) is solved by conjugate gradients.
//!
//! Conjugate gradients alone needs about as many passes over the games as
//! the graph is long: a chain of 20,000 players, each meeting only the
//! next, took tens of thousands of passes for every Newton step. Eliminating
//! a player with one opponent (a leaf) or two (a link in a chain) is exact
//! and adds no work: a leaf hangs off its opponent, a link becomes an edge
//! between its two opponents (two springs in series), so a chain or a tree
//! is solved in one pass, and real games, where many players met only one
//! or two others, leave a much smaller, better connected core.

use std::collections::HashMap;

/// One player eliminated, with the edges they had when eliminated.
#[derive(Debug, Clone, Copy)]
enum Step {
    /// A player with one opponent `to`, through edge `edge`.
    Leaf { player: u32, to: u32, edge: u32 },
    /// A player with two opponents, through edges `ea` and `eb`; `joined`
    /// is the edge between `a` and `b` that stands for both afterwards.
    Link { player: u32, a: u32, ea: u32, b: u32, eb: u32, joined: u32 },
}

/// The players' graph and the order of elimination, which depends only on
/// who met whom: worked out once, used for every Newton step and every
/// simulation.
#[derive(Debug, Clone)]
pub struct Graph {
    players: usize,
    /// Every edge, those between players who met first (one per pair,
    /// however many games), then those that elimination joined.
    edges: Vec<(u32, u32)>,
    /// Edges between players who met.
    met: usize,
    steps: Vec<Step>,
    /// The players left, and the edges between them.
    core: Vec<u32>,
    core_edges: Vec<u32>,
}

impl Graph {
    /// The graph of `pairs` (player ids below `players`), and each pair's
    /// edge; a pair of a player with themselves has none (`u32::MAX`), as it
    /// adds nothing to a Laplacian.
    pub fn new(players: usize, pairs: impl Iterator<Item = (u32, u32)>) -> (Graph, Vec<u32>) {
        let mut index: HashMap<(u32, u32), u32> = HashMap::new();
        let mut edges = Vec::new();
        let edge_of: Vec<u32> = pairs
            .map(|(a, b)| {
                if a == b {
                    return u32::MAX;
                }
                *index.entry((a.min(b), a.max(b))).or_insert_with(|| {
                    edges.push((a.min(b), a.max(b)));
                    edges.len() as u32 - 1
                })
            })
            .collect();
        let met = edges.len();
        // Each player's opponents left, with the edge to each.
        let mut around: Vec<HashMap<u32, u32>> = vec![HashMap::new(); players];
        for (e, &(a, b)) in edges.iter().enumerate() {
            around[a as usize].insert(b, e as u32);
            around[b as usize].insert(a, e as u32);
        }
        let mut waiting: Vec<u32> =
            (0..players as u32).filter(|&p| matches!(around[p as usize].len(), 1 | 2)).collect();
        let mut steps = Vec::new();
        let mut gone = vec![false; players];
        while let Some(player) = waiting.pop() {
            let p = player as usize;
            if gone[p] {
                continue;
            }
            // In id order, so that the same games give the same rounding.
            let mut left: Vec<(u32, u32)> = around[p].iter().take(3).map(|(&q, &e)| (q, e)).collect();
            left.sort_unstable();
            let step = match (left.first().copied(), left.get(1).copied(), left.get(2)) {
                (Some((to, edge)), None, None) => {
                    around[to as usize].remove(&player);
                    Step::Leaf { player, to, edge }
                }
                (Some((a, ea)), Some((b, eb)), None) => {
                    around[a as usize].remove(&player);
                    around[b as usize].remove(&player);
                    let joined = match around[a as usize].get(&b) {
                        Some(&e) => e,
                        None => {
                            edges.push((a.min(b), a.max(b)));
                            let e = edges.len() as u32 - 1;
                            around[a as usize].insert(b, e);
                            around[b as usize].insert(a, e);
                            e
                        }
                    };
                    Step::Link { player, a, ea, b, eb, joined }
                }
                // Already none left (the last of its part of the graph), or
                // more than two again: not eliminated now.
                _ => continue,
            };
            around[p].clear();
            gone[p] = true;
            steps.push(step);
            let touched = match step {
                Step::Leaf { to, .. } => [Some(to), None],
                Step::Link { a, b, .. } => [Some(a), Some(b)],
            };
            waiting.extend(touched.into_iter().flatten().filter(|&q| matches!(around[q as usize].len(), 1 | 2)));
        }
        let core: Vec<u32> = (0..players as u32).filter(|&p| !around[p as usize].is_empty()).collect();
        let mut core_edges: Vec<u32> = core
            .iter()
            .flat_map(|&p| around[p as usize].iter().filter(move |(q, _)| p < **q).map(|(_, &e)| e))
            .collect();
        core_edges.sort_unstable();
        (Graph { players, edges, met, steps, core, core_edges }, edge_of)
    }

    /// Edges between players who met, as numbered by [`Graph::new`].
    pub fn met(&self) -> usize {
        self.met
    }

    /// The elimination carried out on the weights of the edges between
    /// players who met (`weights`, by edge).
    pub fn factor(&self, weights: &[f64]) -> Factor<'_> {
        let mut weights = weights.to_vec();
        weights.resize(self.edges.len(), 0.0);
        for step in &self.steps {
            if let Step::Link { ea, eb, joined, .. } = *step {
                let (wa, wb) = (weights[ea as usize], weights[eb as usize]);
                if wa + wb > 0.0 {
                    weights[joined as usize] += wa * wb / (wa + wb);
                }
            }
        }
        Factor { graph: self, weights }
    }
}

/// The graph with its weights, ready to solve for any right-hand side.
#[derive(Debug)]
pub struct Factor<'a> {
    graph: &'a Graph,
    /// By edge, once the eliminations have added theirs.
    weights: Vec<f64>,
}

impl Factor<'_> {
    /// A solution of `L x = b`, where `b` sums to zero over each connected
    /// part of the graph (else there is none); `x` is one of many (any
    /// common shift of a part solves it too). `converged` is false when
    /// conjugate gradients on the core stopped at its cap short of the
    /// tolerance.
    pub fn solve(&self, b: &[f64]) -> Solution {
        let graph = self.graph;
        let w = |e: u32| self.weights[e as usize];
        let mut b = b.to_vec();
        // A player eliminated passes what they receive on to their
        // opponents, in proportion to the edges' weights.
        for step in &graph.steps {
            match *step {
                Step::Leaf { player, to, .. } => b[to as usize] += b[player as usize],
                Step::Link { player, a, ea, b: other, eb, .. } => {
                    let share = b[player as usize];
                    let total = w(ea) + w(eb);
                    if total > 0.0 {
                        b[a as usize] += share * w(ea) / total;
                        b[other as usize] += share * w(eb) / total;
                    }
                }
            }
        }
        let mut x = vec![0.0; graph.players];
        let converged = self.core(&b, &mut x);
        // Back, last eliminated first: each player's equation, with the
        // opponents they had then already solved.
        for step in graph.steps.iter().rev() {
            match *step {
                Step::Leaf { player, to, edge } => {
                    if w(edge) > 0.0 {
                        x[player as usize] = x[to as usize] + b[player as usize] / w(edge);
                    } else {
                        x[player as usize] = x[to as usize];
                    }
                }
                Step::Link { player, a, ea, b: other, eb, .. } => {
                    let total = w(ea) + w(eb);
                    let (xa, xb) = (x[a as usize], x[other as usize]);
                    x[player as usize] = if total > 0.0 {
                        (b[player as usize] + w(ea) * xa + w(eb) * xb) / total
                    } else {
                        (xa + xb) / 2.0
                    };
                }
            }
        }
        Solution { x, converged }
    }

    /// Solves the core's players into `x` by conjugate gradients,
    /// preconditioned by the diagonal (players' weights differ by the
    /// number of games they played); whether it met the tolerance.
    fn core(&self, b: &[f64], x: &mut [f64]) -> bool {
        let graph = self.graph;
        let n = graph.core.len();
        if n == 0 {
            return true;
        }
        let mut at = vec![u32::MAX; graph.players];
        for (i, &p) in graph.core.iter().enumerate() {
            at[p as usize] = i as u32;
        }
        let edges: Vec<(usize, usize, f64)> = graph
            .core_edges
            .iter()
            .map(|&e| {
                let (p, q) = graph.edges[e as usize];
                (at[p as usize] as usize, at[q as usize] as usize, self.weights[e as usize])
            })
            .collect();
        let times = |v: &[f64], out: &mut [f64]| {
            out.iter_mut().for_each(|o| *o = 0.0);
            for &(i, j, weight) in &edges {
                let flow = weight * (v[i] - v[j]);
                out[i] += flow;
                out[j] -= flow;
            }
        };
        let mut diagonal = vec![0.0; n];
        for &(i, j, weight) in &edges {
            diagonal[i] += weight;
            diagonal[j] += weight;
        }
        let precondition = |r: &[f64], z: &mut [f64]| {
            for ((z, r), d) in z.iter_mut().zip(r).zip(&diagonal) {
                *z = if *d > 0.0 { r / d } else { 0.0 };
            }
        };
        // The core is connected when the graph is: its Laplacian's range is
        // the vectors summing to zero, and keeping the residual there keeps
        // rounding from piling up along the common shift.
        let project = |v: &mut [f64]| {
            let mean = v.iter().sum::<f64>() / n as f64;
            v.iter_mut().for_each(|v| *v -= mean);
        };
        let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f64>();
        let mut r: Vec<f64> = graph.core.iter().map(|&p| b[p as usize]).collect();
        project(&mut r);
        let tolerance = 1e-24 * dot(&r, &r);
        let mut solution = vec![0.0; n];
        let mut z = vec![0.0; n];
        precondition(&r, &mut z);
        let mut p = z.clone();
        let mut rz = dot(&r, &z);
        let mut q = vec![0.0; n];
        let mut converged = dot(&r, &r) <= tolerance;
        // Exact arithmetic would need at most n steps.
        for _ in 0..2 * n + 100 {
            if converged {
                break;
            }
            times(&p, &mut q);
            let pq = dot(&p, &q);
            if pq <= 0.0 || rz <= 0.0 {
                break;
            }
            let alpha = rz / pq;
            solution.iter_mut().zip(&p).for_each(|(s, p)| *s += alpha * p);
            r.iter_mut().zip(&q).for_each(|(r, q)| *r -= alpha * q);
            project(&mut r);
            converged = dot(&r, &r) <= tolerance;
            precondition(&r, &mut z);
            let next = dot(&r, &z);
            let beta = next / rz;
            rz = next;
            p.iter_mut().zip(&z).for_each(|(p, z)| *p = z + beta * *p);
        }
        for (&player, s) in graph.core.iter().zip(solution) {
            x[player as usize] = s;
        }
        converged
    }
}

/// What [`Factor::solve`] found.
#[derive(Debug)]
pub struct Solution {
    /// By player.
    pub x: Vec<f64>,
    /// Whether the core met the tolerance (always, without a core).
    pub converged: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `L x` for the weighted `pairs`.
    fn laplacian_times(players: usize, pairs: &[(u32, u32, f64)], x: &[f64]) -> Vec<f64> {
        let mut out = vec![0.0; players];
        for &(a, b, w) in pairs {
            let flow = w * (x[a as usize] - x[b as usize]);
            out[a as usize] += flow;
            out[b as usize] -= flow;
        }
        out
    }

    /// Builds, factors and solves `pairs` for `b`, and checks `L x = b`.
    fn solves(players: usize, pairs: &[(u32, u32, f64)], b: &[f64]) -> Graph {
        let (graph, edge_of) = Graph::new(players, pairs.iter().map(|&(a, b, _)| (a, b)));
        let mut weights = vec![0.0; graph.met()];
        for (&(_, _, w), &e) in pairs.iter().zip(&edge_of) {
            weights[e as usize] += w;
        }
        let solution = graph.factor(&weights).solve(b);
        assert!(solution.converged);
        let back = laplacian_times(players, pairs, &solution.x);
        for (got, want) in back.iter().zip(b) {
            assert!((got - want).abs() < 1e-9, "{back:?} against {b:?}");
        }
        graph
    }

    #[test]
    fn a_chain_is_eliminated_whole_and_solved_exactly() {
        let n = 1000;
        let pairs: Vec<(u32, u32, f64)> = (0..n - 1).map(|i| (i, i + 1, 1.0 + f64::from(i % 7))).collect();
        let mut b: Vec<f64> = (0..n).map(|i| f64::from(i % 5) - 2.0).collect();
        let mean = b.iter().sum::<f64>() / f64::from(n);
        b.iter_mut().for_each(|v| *v -= mean);
        let graph = solves(n as usize, &pairs, &b);
        assert!(graph.core.is_empty());
    }

    #[test]
    fn a_ring_and_a_tree_hanging_off_a_dense_core_leave_only_the_core() {
        // Players 0-4 all met each other; 5-9 are a ring through 0; 10-12
        // a tree off 1; a second game between 5 and 6 merges into one edge.
        let mut pairs = Vec::new();
        for a in 0..5 {
            for b in a + 1..5 {
                pairs.push((a, b, 0.5 + f64::from(a + b) / 10.0));
            }
        }
        pairs.extend([(0, 5, 1.0), (5, 6, 2.0), (5, 6, 0.5), (6, 7, 1.0), (7, 8, 3.0), (8, 9, 1.0), (9, 0, 1.0)]);
        pairs.extend([(1, 10, 1.0), (10, 11, 2.0), (10, 12, 0.25)]);
        let b = [3.0, -1.0, 0.5, 0.0, -2.0, 1.0, -0.5, 0.0, 2.0, -1.0, 0.5, -1.5, -1.0];
        assert!(b.iter().sum::<f64>().abs() < 1e-12);
        let graph = solves(13, &pairs, &b);
        assert_eq!(graph.core, [0, 1, 2, 3, 4]);
    }

    #[test]
    fn a_grid_is_left_to_conjugate_gradients() {
        let side = 12u32;
        let mut pairs = Vec::new();
        for i in 0..side {
            for j in 0..side {
                let p = i * side + j;
                if i + 1 < side {
                    pairs.push((p, p + side, 1.0 + f64::from(j % 3)));
                }
                if j + 1 < side {
                    pairs.push((p, p + 1, 0.5));
                }
            }
        }
        let players = (side * side) as usize;
        let mut b = vec![0.0; players];
        b[0] = 1.0;
        b[players - 1] = -1.0;
        let graph = solves(players, &pairs, &b);
        // Only the four corners have two neighbours.
        assert_eq!(graph.core.len(), players - 4);
    }
}
