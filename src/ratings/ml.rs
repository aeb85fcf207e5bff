//! Maximum-likelihood ratings over all games at once, as engine testers
//! compute them after a tournament (Ordo, BayesElo), worked out here from
//! the model rather than taken from either program.
//!
//! # Model
//!
//! White's expected score in a game is `F(r_white − r_black + η)` with
//! `F(x) = 1 / (1 + 10^(−x/400))` and `η` the white advantage (0 unless
//! fixed or estimated). A game scored `s` (1, ½, 0) has the likelihood
//! `F^s (1 − F)^(1−s)`: a draw counts as half a win and half a loss, so the
//! ratings depend on the points only, and at the maximum every player's
//! expected points equal their points. Ratings are fixed up to a common
//! shift: an anchor player is given a rating, else their mean is.
//!
//! The maximum is found by Newton's method; each step solves the system of
//! the Hessian (a weighted graph Laplacian, singular along the common
//! shift) by eliminating the players with one or two opponents exactly and
//! conjugate gradients on the rest (`ml/laplacian.rs`), so a step costs a few
//! passes over the games rather than a dense solve, and a chain of players
//! costs one. Ratings are not bounded: the ends of a long chain can be
//! millions of points apart, and that is their maximum.
//!
//! A finite maximum exists only when every set of players has scored
//! something against the others and the others against them: in the
//! "scored against" graph every player must reach every other. Players who
//! never met (separate pools) and players with a perfect or a zero score
//! against the rest are reported as errors rather than rated. With the
//! white advantage fixed that is enough, and Newton's method (each step
//! halved until the likelihood does not fall) reaches the maximum. An
//! estimated advantage needs more: White must have scored some points and
//! not all, the pairings must tell the advantage from the ratings (not
//! every player always of one colour), and no ratings may make every
//! result likelier as the advantage grows without end; a fit that keeps
//! moving is reported with the advantage it reached.
//!
//! # Draws and error bars
//!
//! The draw rate `ν` is the chance of a draw between equal opponents; a
//! game with expected score `E` is drawn with probability
//! `min(ν · 4E(1 − E), 2 min(E, 1 − E))`, which keeps `E`. It is fixed
//! (0.5 unless given) or estimated by maximum likelihood from which games
//! were drawn. Error bars come from a parametric bootstrap: each simulation
//! replays the same pairings with results drawn from the fitted model
//! (W/D/L with that draw rate), rates them again, and the error is 1.96
//! standard deviations of a player's simulated ratings (a 95% interval).
//! Simulations whose results have no finite maximum are left out and
//! counted. A simulation's random numbers depend only on the seed and its
//! number, so the results are the same for any number of threads.

use rayon::prelude::*;

use super::{Ledger, Record, Standing};

mod laplacian;

use laplacian::Graph;

/// `ln(10) / 400`: `F(x) = 1 / (1 + e^(−C x))`.
const C: f64 = std::f64::consts::LN_10 / 400.0;

/// Two-sided 95% normal quantile.
const Z95: f64 = 1.959_963_984_540_054;

/// A model parameter: given, or estimated from the games.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Param {
    /// This value.
    Fixed(f64),
    /// Estimated by maximum likelihood.
    Estimated,
}

/// How ratings are computed.
#[derive(Debug, Clone, PartialEq)]
pub struct MlOptions {
    /// A player and the rating they are given; the others follow.
    pub anchor: Option<(String, f64)>,
    /// Without an anchor, the mean rating.
    pub average: f64,
    /// White's advantage, in rating points.
    pub white_advantage: Param,
    /// The draw rate between equal opponents (for the simulations).
    pub draw_rate: Param,
    /// Simulations for the error bars (0: none).
    pub simulations: u32,
    /// The seed of the simulations' random numbers.
    pub seed: u64,
}

impl Default for MlOptions {
    fn default() -> Self {
        MlOptions {
            anchor: None,
            average: 2300.0,
            white_advantage: Param::Fixed(0.0),
            draw_rate: Param::Fixed(0.5),
            simulations: 0,
            seed: 1,
        }
    }
}

/// The ratings and what else was estimated.
#[derive(Debug, Clone, PartialEq)]
pub struct MlRatings {
    /// One per player, by player id; `before` and `after` are both the
    /// rating, and the record's opponent sum uses the opponents' ratings.
    pub standings: Vec<Standing>,
    /// With simulations: each player's error (95%), by player id.
    pub errors: Option<Vec<f64>>,
    /// The white advantage used.
    pub white_advantage: f64,
    /// Its error, when estimated and simulated.
    pub white_advantage_error: Option<f64>,
    /// The draw rate between equal opponents.
    pub draw_rate: f64,
    /// Its error, when estimated and simulated.
    pub draw_rate_error: Option<f64>,
    /// Simulations left out because their results had no finite maximum.
    pub simulations_left_out: u32,
}

/// Why there are no maximum-likelihood ratings.
#[derive(Debug, Clone, PartialEq)]
pub enum MlError {
    /// No game was rated.
    NoGames,
    /// The anchor played no rated game.
    UnknownAnchor(String),
    /// Some players never met the others, even through third players: each
    /// pool's players, largest pool first.
    Pools(Vec<Vec<u32>>),
    /// These players scored everything against all other players they met
    /// (`perfect`), or these nothing (`zero`): their ratings would be
    /// infinitely far from the others'.
    Unbounded {
        /// A group that scored 100% against everyone outside it.
        perfect: Vec<u32>,
        /// A group that scored 0% against everyone outside it.
        zero: Vec<u32>,
    },
    /// The white advantage cannot be estimated: White scored all or none of
    /// the points.
    WhiteAdvantage,
    /// The white advantage cannot be told apart from the ratings: ratings
    /// exist that are one point apart, White above Black, in every game
    /// (as when each player always had the same colour), so a larger
    /// advantage with those ratings taken away fits exactly as well.
    WhiteAdvantageUnidentified,
    /// Newton's method stopped short of the maximum.
    NoConvergence {
        /// Newton steps taken.
        steps: u32,
        /// Points the last step moved a game's rating difference by
        /// (infinite when the ratings overflowed).
        moved: f64,
        /// Whether the last step's linear solve met its tolerance.
        solved: bool,
        /// When estimated: the white advantage reached, and the last
        /// step's change to it.
        white_advantage: Option<(f64, f64)>,
    },
}

impl MlError {
    /// The error in words, with the players' names.
    pub fn describe(&self, names: &[String]) -> String {
        // Names are quoted: many are written `Surname, First`.
        let list = |ids: &[u32]| {
            let mut all: Vec<&str> = ids.iter().map(|&id| names[id as usize].as_str()).collect();
            all.sort_unstable();
            let shown: Vec<String> = all.iter().take(5).map(|name| format!("{name:?}")).collect();
            let more = ids.len().saturating_sub(5);
            let mut text = shown.join(", ");
            if more > 0 {
                text.push_str(&format!(" and {more} more"));
            }
            text
        };
        match self {
            MlError::NoGames => "no rated games: there is nothing to fit".to_owned(),
            MlError::UnknownAnchor(name) => format!("the anchor {name:?} has no rated game"),
            MlError::Pools(pools) => {
                let described: Vec<String> = pools
                    .iter()
                    .take(3)
                    .map(|pool| {
                        format!("{} ({} player{})", list(pool), pool.len(), if pool.len() == 1 { "" } else { "s" })
                    })
                    .collect();
                format!(
                    "the players fall into {} pools that never met, so their ratings cannot be compared: {}{}; \
                     rate each pool apart, or add games between them",
                    pools.len(),
                    described.join("; "),
                    if pools.len() > 3 { "; ..." } else { "" }
                )
            }
            MlError::Unbounded { perfect, zero } => {
                let mut parts = Vec::new();
                if !perfect.is_empty() {
                    parts.push(format!("{} scored 100% against every other player met", list(perfect)));
                }
                if !zero.is_empty() {
                    parts.push(format!("{} scored 0% against every other player met", list(zero)));
                }
                format!(
                    "no finite maximum-likelihood ratings: {} (the ratings would be infinitely far apart); \
                     leave these games out or add games where they drop points",
                    parts.join(", and ")
                )
            }
            MlError::WhiteAdvantage => {
                "the white advantage cannot be estimated: White scored all or none of the points".to_owned()
            }
            MlError::WhiteAdvantageUnidentified => "the white advantage cannot be estimated: these pairings cannot \
                 tell it from the ratings (the players can be rated so that White is the same distance above Black \
                 in every game, as when each player always had the same colour); give it with --white-advantage N"
                .to_owned(),
            MlError::NoConvergence { steps, moved, solved, white_advantage } => {
                let moved = if *moved >= 1e-3 { format!("{moved:.3}") } else { format!("{moved:.1e}") };
                let mut text = format!(
                    "the maximum-likelihood fit did not settle: after {steps} Newton steps the last still moved \
                     a game's rating difference by {moved} points"
                );
                if !solved {
                    text.push_str(", and its linear solve stopped short of its tolerance");
                }
                match white_advantage {
                    Some((value, change)) => text.push_str(&format!(
                        "; the white advantage, estimated, was at {value:.1} and still moving by {change:.1} a \
                         step: when no finite advantage fits the games it runs away with the ratings, so give it \
                         with --white-advantage N"
                    )),
                    // Every check passed: without an advantage to estimate,
                    // the maximum exists and the solver fell short of it.
                    None => text.push_str("; finite ratings exist, but the solver fell short of them"),
                }
                text
            }
        }
    }
}

/// The games as the fit sees them: who played whom, and the players'
/// graph that the Hessian is the Laplacian of.
#[derive(Debug, Clone)]
struct Games {
    players: usize,
    /// White and Black of each game.
    pairs: Vec<(u32, u32)>,
    graph: Graph,
    /// Each game's edge in `graph`.
    edge_of: Vec<u32>,
}

impl Games {
    fn new(players: usize, pairs: Vec<(u32, u32)>) -> Games {
        let (graph, edge_of) = Graph::new(players, pairs.iter().copied());
        Games { players, pairs, graph, edge_of }
    }
}

/// A fitted model.
#[derive(Debug, Clone)]
struct Fit {
    /// Ratings around 0 (shifted to the anchor or average afterwards).
    ratings: Vec<f64>,
    white_advantage: f64,
}

/// White's expected score at rating difference `x` (white advantage in).
fn expected(x: f64) -> f64 {
    1.0 / (1.0 + (-C * x).exp())
}

/// Rates the ledger's games by maximum likelihood.
pub fn rate(ledger: &Ledger, options: &MlOptions) -> Result<MlRatings, MlError> {
    let records = ledger.games();
    if records.is_empty() {
        return Err(MlError::NoGames);
    }
    let anchor = anchor(ledger, options)?;
    let games = Games::new(ledger.players().len(), records.iter().map(|g| (g.white, g.black)).collect());
    let scores: Vec<f64> = records.iter().map(|g| g.outcome.white_score()).collect();
    let pools = pools(&games);
    if pools.len() > 1 {
        return Err(MlError::Pools(pools));
    }
    check_bounded(&games, &scores)?;
    let model = Model::new(&games, options, anchor);
    if model.estimate_white && white_scored_all_or_none(&scores) {
        return Err(MlError::WhiteAdvantage);
    }
    if model.estimate_white && colours_confounded(&games) {
        return Err(MlError::WhiteAdvantageUnidentified);
    }
    let fit = model.fit_to(&scores)?;
    let offset = model.offset(&fit.ratings);
    // Rounded to a millionth of a point, so that players whose results are
    // alike get equal ratings (and share a rank) despite rounding noise.
    let ratings: Vec<f64> = fit.ratings.iter().map(|r| ((r + offset) * 1e6).round() / 1e6).collect();
    let draws: Vec<bool> = scores.iter().map(|&s| s == 0.5).collect();
    let draw_rate = model.draw_rate(&fit, &draws);
    let bars = if options.simulations > 0 { model.error_bars(&fit, draw_rate) } else { ErrorBars::default() };
    Ok(MlRatings {
        standings: standings(&games, &ratings, &scores),
        errors: bars.ratings,
        white_advantage: fit.white_advantage,
        white_advantage_error: bars.white_advantage,
        draw_rate,
        draw_rate_error: bars.draw_rate,
        simulations_left_out: bars.left_out,
    })
}

/// The anchor's player id and rating, when there is an anchor; it must have played a rated game.
fn anchor(ledger: &Ledger, options: &MlOptions) -> Result<Option<(usize, f64)>, MlError> {
    let Some((name, rating)) = &options.anchor else { return Ok(None) };
    let records = ledger.games();
    let id = ledger.players().iter().position(|n| n == name);
    let id = id.filter(|&id| records.iter().any(|g| g.white as usize == id || g.black as usize == id));
    Ok(Some((id.ok_or_else(|| MlError::UnknownAnchor(name.clone()))?, *rating)))
}

/// Whether White scored all the points or none: no finite white advantage fits.
fn white_scored_all_or_none(scores: &[f64]) -> bool {
    let white: f64 = scores.iter().sum();
    white == 0.0 || white == scores.len() as f64
}

/// Whether ratings exist that put White one point above Black in every
/// game: then the white advantage and those ratings move together without
/// changing any game's expected score.
fn colours_confounded(games: &Games) -> bool {
    let mut opponents: Vec<Vec<(u32, i64)>> = vec![Vec::new(); games.players];
    for &(white, black) in &games.pairs {
        opponents[white as usize].push((black, -1));
        opponents[black as usize].push((white, 1));
    }
    let mut level: Vec<Option<i64>> = vec![None; games.players];
    let mut queue = Vec::new();
    for start in 0..games.players {
        if level[start].is_some() {
            continue;
        }
        level[start] = Some(0);
        queue.push(start);
        while let Some(p) = queue.pop() {
            let here = level[p].unwrap_or(0);
            for &(q, step) in &opponents[p] {
                if level[q as usize].is_none() {
                    level[q as usize] = Some(here + step);
                    queue.push(q as usize);
                }
            }
        }
    }
    games.pairs.iter().all(|&(white, black)| match (level[white as usize], level[black as usize]) {
        (Some(white), Some(black)) => white - black == 1,
        _ => false,
    })
}

/// Each player's standing at `ratings`, with the games' records.
fn standings(games: &Games, ratings: &[f64], scores: &[f64]) -> Vec<Standing> {
    let mut standings: Vec<Standing> = ratings
        .iter()
        .enumerate()
        .map(|(id, &rating)| Standing { player: id as u32, record: Record::default(), before: rating, after: rating })
        .collect();
    for (&(white, black), &score) in games.pairs.iter().zip(scores) {
        standings[white as usize].record.add(score, ratings[black as usize]);
        standings[black as usize].record.add(1.0 - score, ratings[white as usize]);
    }
    standings
}

/// How the games are fitted, the same for the results played and for every simulation of them.
struct Model<'a> {
    games: &'a Games,
    options: &'a MlOptions,
    /// The anchor's player id and rating.
    anchor: Option<(usize, f64)>,
    estimate_white: bool,
    /// The white advantage when it is not estimated.
    fixed_white: f64,
}

/// One simulation's ratings (shifted like the fitted ones), white advantage and draw rate.
type Simulated = (Vec<f64>, f64, f64);

/// The errors (95%) the simulations give, and the simulations left out.
#[derive(Debug, Default)]
struct ErrorBars {
    /// By player id.
    ratings: Option<Vec<f64>>,
    white_advantage: Option<f64>,
    draw_rate: Option<f64>,
    left_out: u32,
}

impl<'a> Model<'a> {
    /// The model `options` ask for, over `games`.
    fn new(games: &'a Games, options: &'a MlOptions, anchor: Option<(usize, f64)>) -> Self {
        let fixed_white = match options.white_advantage {
            Param::Fixed(value) => value,
            Param::Estimated => 0.0,
        };
        Model { games, options, anchor, estimate_white: options.white_advantage == Param::Estimated, fixed_white }
    }

    /// The maximum-likelihood fit of White's `scores`.
    fn fit_to(&self, scores: &[f64]) -> Result<Fit, MlError> {
        fit(self.games, scores, self.estimate_white, self.fixed_white)
    }

    /// What to add to fitted `ratings` to put the anchor at its rating, else their mean at the average.
    fn offset(&self, ratings: &[f64]) -> f64 {
        match self.anchor {
            Some((id, rating)) => rating - ratings[id],
            None => self.options.average - ratings.iter().sum::<f64>() / ratings.len() as f64,
        }
    }

    /// The draw rate: given, or estimated from which games were `draws` under `fit`.
    fn draw_rate(&self, fit: &Fit, draws: &[bool]) -> f64 {
        match self.options.draw_rate {
            Param::Fixed(rate) => rate,
            Param::Estimated => estimate_draw_rate(self.games, fit, draws),
        }
    }

    /// The error bars from simulated replays of the games under `fit` and `draw_rate`.
    fn error_bars(&self, fit: &Fit, draw_rate: f64) -> ErrorBars {
        let simulations = self.options.simulations;
        let simulated: Vec<Option<Simulated>> =
            (0..simulations).into_par_iter().map(|n| self.simulation(fit, draw_rate, n)).collect();
        let kept: Vec<&Simulated> = simulated.iter().flatten().collect();
        let mut bars = ErrorBars { left_out: simulations - kept.len() as u32, ..ErrorBars::default() };
        if kept.len() >= 2 {
            bars.ratings = Some(
                (0..self.games.players)
                    .map(|id| Z95 * deviation(kept.iter().map(|(ratings, _, _)| ratings[id])))
                    .collect(),
            );
            if self.estimate_white {
                bars.white_advantage = Some(Z95 * deviation(kept.iter().map(|k| k.1)));
            }
            if self.options.draw_rate == Param::Estimated {
                bars.draw_rate = Some(Z95 * deviation(kept.iter().map(|k| k.2)));
            }
        }
        bars
    }

    /// Simulation `n` fitted again; `None` when its results have no finite maximum.
    fn simulation(&self, fit: &Fit, draw_rate: f64, n: u32) -> Option<Simulated> {
        let mut rng = SplitMix64::new(self.options.seed, u64::from(n));
        let (scores, draws) = simulate(self.games, fit, draw_rate, &mut rng);
        if check_bounded(self.games, &scores).is_err() {
            return None;
        }
        if self.estimate_white && white_scored_all_or_none(&scores) {
            return None;
        }
        let again = self.fit_to(&scores).ok()?;
        let offset = self.offset(&again.ratings);
        let rate = self.draw_rate(&again, &draws);
        Some((again.ratings.iter().map(|r| r + offset).collect(), again.white_advantage, rate))
    }
}

/// The sample standard deviation.
fn deviation(values: impl Iterator<Item = f64> + Clone) -> f64 {
    let (n, sum) = values.clone().fold((0.0, 0.0), |(n, sum), v| (n + 1.0, sum + v));
    let mean = sum / n;
    let squares: f64 = values.map(|v| (v - mean) * (v - mean)).sum();
    (squares / (n - 1.0)).sqrt()
}

/// The connected groups of players who have games (through any chain of
/// opponents), largest first, each sorted by id.
fn pools(games: &Games) -> Vec<Vec<u32>> {
    let mut parent: Vec<u32> = (0..games.players as u32).collect();
    fn root(parent: &mut [u32], mut x: u32) -> u32 {
        while parent[x as usize] != x {
            parent[x as usize] = parent[parent[x as usize] as usize];
            x = parent[x as usize];
        }
        x
    }
    let mut played = vec![false; games.players];
    for &(white, black) in &games.pairs {
        played[white as usize] = true;
        played[black as usize] = true;
        let (a, b) = (root(&mut parent, white), root(&mut parent, black));
        parent[a.max(b) as usize] = a.min(b);
    }
    let mut groups: std::collections::BTreeMap<u32, Vec<u32>> = std::collections::BTreeMap::new();
    for id in 0..games.players as u32 {
        if played[id as usize] {
            let r = root(&mut parent, id);
            groups.entry(r).or_default().push(id);
        }
    }
    let mut pools: Vec<Vec<u32>> = groups.into_values().collect();
    pools.sort_by_key(|pool| std::cmp::Reverse(pool.len()));
    pools
}

/// Whether the "scored against" graph (an edge from each player to each
/// opponent they took points from) lets every player reach every other;
/// else the group that reaches no one outside (scored 0% against the
/// rest) and the group no one outside reaches (scored 100%).
fn check_bounded(games: &Games, scores: &[f64]) -> Result<(), MlError> {
    let n = games.players;
    let mut out: Vec<Vec<u32>> = vec![Vec::new(); n];
    let mut played = vec![false; n];
    for (&(white, black), &score) in games.pairs.iter().zip(scores) {
        played[white as usize] = true;
        played[black as usize] = true;
        if score > 0.0 {
            out[white as usize].push(black);
        }
        if score < 1.0 {
            out[black as usize].push(white);
        }
    }
    let component = strong_components(&out);
    let count = component.iter().zip(&played).filter(|(_, p)| **p).map(|(c, _)| *c).max().map_or(0, |c| c + 1);
    let mut components: Vec<u32> = (0..n).filter(|&i| played[i]).map(|i| component[i]).collect();
    components.sort_unstable();
    components.dedup();
    if components.len() <= 1 {
        return Ok(());
    }
    // In the graph of components, one with no edge out scored nothing
    // against the rest, one with no edge in gave up nothing to them.
    let mut has_out = vec![false; count as usize];
    let mut has_in = vec![false; count as usize];
    for (from, targets) in out.iter().enumerate() {
        for &to in targets {
            let (a, b) = (component[from], component[to as usize]);
            if a != b {
                has_out[a as usize] = true;
                has_in[b as usize] = true;
            }
        }
    }
    let members = |c: u32| (0..n as u32).filter(|&i| played[i as usize] && component[i as usize] == c).collect();
    let zero = components.iter().find(|&&c| !has_out[c as usize]).map_or_else(Vec::new, |&c| members(c));
    let perfect = components.iter().find(|&&c| !has_in[c as usize]).map_or_else(Vec::new, |&c| members(c));
    Err(MlError::Unbounded { perfect, zero })
}

/// Strongly connected components (Tarjan's algorithm, iterative): the
/// component number of every vertex.
fn strong_components(out: &[Vec<u32>]) -> Vec<u32> {
    let n = out.len();
    const NONE: u32 = u32::MAX;
    let (mut index, mut low, mut component) = (vec![NONE; n], vec![0u32; n], vec![NONE; n]);
    let (mut on_stack, mut stack) = (vec![false; n], Vec::new());
    let (mut next_index, mut next_component) = (0u32, 0u32);
    for start in 0..n {
        if index[start] != NONE {
            continue;
        }
        // (vertex, next edge to look at)
        let mut calls: Vec<(usize, usize)> = vec![(start, 0)];
        index[start] = next_index;
        low[start] = next_index;
        next_index += 1;
        stack.push(start);
        on_stack[start] = true;
        while let Some(&mut (v, ref mut edge)) = calls.last_mut() {
            if let Some(&w) = out[v].get(*edge) {
                *edge += 1;
                let w = w as usize;
                if index[w] == NONE {
                    index[w] = next_index;
                    low[w] = next_index;
                    next_index += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    calls.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            calls.pop();
            if let Some(&(parent, _)) = calls.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    component[w] = next_component;
                    if w == v {
                        break;
                    }
                }
                next_component += 1;
            }
        }
    }
    component
}

/// Newton steps allowed: from ratings all equal, a fit settles in a few
/// dozen at most.
const NEWTON_STEPS: u32 = 200;

/// Maximises the likelihood by Newton's method. Each step solves the
/// system of the Hessian, `[[L, c], [cᵀ, γ]]` with `L` the Laplacian of the
/// players' graph weighted by the games (and `c`, `γ` the white
/// advantage's row when it is estimated, through `L`'s Schur complement).
fn fit(games: &Games, scores: &[f64], estimate_white: bool, white_advantage: f64) -> Result<Fit, MlError> {
    let n = games.players;
    let mut x = vec![0.0; n];
    let mut white = if estimate_white { 0.0 } else { white_advantage };
    let mut gradient = vec![0.0; n];
    let mut coupling = vec![0.0; n];
    let mut edge_weights = vec![0.0; games.graph.met()];
    // With the advantage estimated: each game's pull and weight.
    let mut per_game = vec![(0.0, 0.0); if estimate_white { scores.len() } else { 0 }];
    let mut moved = f64::INFINITY;
    let mut solved = true;
    let mut last_white = white;
    for _ in 0..NEWTON_STEPS {
        gradient.iter_mut().chain(&mut coupling).chain(&mut edge_weights).for_each(|v| *v = 0.0);
        for (g, ((&(w, b), &s), &edge)) in games.pairs.iter().zip(scores).zip(&games.edge_of).enumerate() {
            let d = x[w as usize] - x[b as usize] + white;
            // s − F(d), as s F(−d) − (1 − s) F(d): a game won or lost keeps
            // its pull far out, where 1 − F(d) would round to 0 and a fit
            // running away would look settled.
            let residual = C * (s * expected(-d) - (1.0 - s) * expected(d));
            let weight = C * C * spread(d);
            gradient[w as usize] += residual;
            gradient[b as usize] -= residual;
            if let Some(e) = edge_weights.get_mut(edge as usize) {
                *e += weight;
            }
            if estimate_white {
                per_game[g] = (residual, weight);
                coupling[w as usize] += weight;
                coupling[b as usize] -= weight;
            }
        }
        let factor = games.graph.factor(&edge_weights);
        let ratings = factor.solve(&gradient);
        solved = ratings.converged;
        let mut step = ratings.x;
        let mut white_step = 0.0;
        if estimate_white {
            // With `L z = c`, the Schur complement `γ − cᵀz` and the
            // advantage's gradient less `cᵀy` (`y` the ratings' step) are
            // sums over the games of `w (1 − u·z)²` and `r (1 − u·z)`, `u`
            // the game's +1 for White and −1 for Black: no subtraction of
            // nearly equal sums, which would lose a game whose weight is
            // below the others' rounding (a fit running away).
            let through = factor.solve(&coupling);
            solved &= through.converged;
            let z = &through.x;
            let (mut schur, mut reduced) = (0.0, 0.0);
            for (&(w, b), &(residual, weight)) in games.pairs.iter().zip(&per_game) {
                let left = 1.0 - (z[w as usize] - z[b as usize]);
                schur += weight * left * left;
                reduced += residual * left;
            }
            // The pairings were checked to tell the advantage from the
            // ratings, so this is 0 only when every weight rounded to 0.
            if schur > 0.0 {
                white_step = reduced / schur;
            }
            step.iter_mut().zip(z).for_each(|(s, t)| *s -= t * white_step);
        }
        let mean = step.iter().sum::<f64>() / n as f64;
        step.iter_mut().for_each(|s| *s -= mean);
        // A full Newton step can overshoot far from the maximum: halve it
        // until the likelihood does not fall.
        let before = log_likelihood(games, scores, &x, white);
        let mut t = 1.0;
        let mut next = x.clone();
        let mut next_white;
        loop {
            next.iter_mut().zip(&x).zip(&step).for_each(|((n, x), s)| *n = x + t * s);
            next_white = white + t * white_step;
            let after = log_likelihood(games, scores, &next, next_white);
            if after >= before - 1e-12 * before.abs() || t < 1e-6 {
                break;
            }
            t /= 2.0;
        }
        // The likelihood depends on the ratings' differences only: how far
        // the step moved the difference of any game.
        moved = t * games
            .pairs
            .iter()
            .map(|&(w, b)| (step[w as usize] - step[b as usize] + white_step).abs())
            .fold(0.0, f64::max);
        x = next;
        last_white = white;
        white = next_white;
        if !x.iter().all(|v| v.is_finite()) || !white.is_finite() {
            moved = f64::INFINITY;
            break;
        }
        if solved && moved < settled(&x) {
            let mean = x.iter().sum::<f64>() / n as f64;
            return Ok(Fit { ratings: x.iter().map(|r| r - mean).collect(), white_advantage: white });
        }
    }
    Err(MlError::NoConvergence {
        steps: NEWTON_STEPS,
        moved,
        solved,
        white_advantage: estimate_white.then_some((white, white - last_white)),
    })
}

/// How little a step must move every game's rating difference for the fit
/// to have settled: a billionth of a point, or what rounding leaves of a
/// difference between ratings as large as `x`'s, when more.
fn settled(x: &[f64]) -> f64 {
    let largest = x.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    1e-9f64.max(64.0 * f64::EPSILON * largest)
}

/// `e (1 − e)` for `e = F(x)`, without rounding to 0 far out (where `e`
/// itself rounds to 1).
fn spread(x: f64) -> f64 {
    let q = (-C * x.abs()).exp();
    q / ((1.0 + q) * (1.0 + q))
}

/// The log-likelihood of the scores at ratings `x` and white advantage
/// `white`, up to a constant.
fn log_likelihood(games: &Games, scores: &[f64], x: &[f64], white: f64) -> f64 {
    games
        .pairs
        .iter()
        .zip(scores)
        .map(|(&(w, b), &s)| {
            // ln e = -softplus(-d) and ln(1 - e) = -softplus(d), finite far out.
            let softplus = |z: f64| if z > 30.0 { z } else { z.exp().ln_1p() };
            let d = C * (x[w as usize] - x[b as usize] + white);
            -s * softplus(-d) - (1.0 - s) * softplus(d)
        })
        .sum()
}

/// The chance that a game with White's expected score `e` is drawn.
fn draw_chance(draw_rate: f64, e: f64) -> f64 {
    (draw_rate * 4.0 * e * (1.0 - e)).min(2.0 * e.min(1.0 - e))
}

/// The draw rate between equal opponents that makes the games drawn most
/// likely, given the fitted expected scores.
fn estimate_draw_rate(games: &Games, fit: &Fit, draws: &[bool]) -> f64 {
    let weights: Vec<(f64, bool)> = games
        .pairs
        .iter()
        .zip(draws)
        .map(|(&(w, b), &drawn)| {
            let e = expected(fit.ratings[w as usize] - fit.ratings[b as usize] + fit.white_advantage);
            (4.0 * e * (1.0 - e), drawn)
        })
        .collect();
    let drawn = weights.iter().filter(|w| w.1).count() as f64;
    if drawn == 0.0 {
        return 0.0;
    }
    // d/dν of Σ_drawn ln(ν q) + Σ_other ln(1 − ν q) falls as ν grows: its
    // zero is found by bisection below the rate that would make an
    // undrawn game certain to be drawn.
    let top = weights.iter().filter(|w| !w.1).map(|w| w.0).fold(0.0f64, f64::max);
    let (mut low, mut high) = (0.0, if top > 0.0 { (1.0 / top).min(1.0) } else { 1.0 });
    let slope =
        |rate: f64| drawn / rate - weights.iter().filter(|w| !w.1).map(|w| w.0 / (1.0 - rate * w.0)).sum::<f64>();
    if slope(high * (1.0 - 1e-12)) >= 0.0 {
        return high;
    }
    for _ in 0..100 {
        let middle = (low + high) / 2.0;
        if slope(middle) > 0.0 {
            low = middle;
        } else {
            high = middle;
        }
    }
    (low + high) / 2.0
}

/// White's scores (and which were draws) of one simulated replay of the
/// games under the fitted model.
fn simulate(games: &Games, fit: &Fit, draw_rate: f64, rng: &mut SplitMix64) -> (Vec<f64>, Vec<bool>) {
    games
        .pairs
        .iter()
        .map(|&(w, b)| {
            let e = expected(fit.ratings[w as usize] - fit.ratings[b as usize] + fit.white_advantage);
            let draw = draw_chance(draw_rate, e);
            let u = rng.unit();
            if u < e - draw / 2.0 {
                (1.0, false)
            } else if u < e + draw / 2.0 {
                (0.5, true)
            } else {
                (0.0, false)
            }
        })
        .unzip()
}

/// SplitMix64 (Steele, Lea and Flood 2014): a small, fast generator whose
/// streams for different starting states do not overlap in practice.
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

    /// The generator of simulation `stream` under `seed`.
    pub fn new(seed: u64, stream: u64) -> SplitMix64 {
        let mut base = SplitMix64(seed);
        // Mix the stream number in through one output, so that streams of
        // neighbouring seeds do not share states.
        SplitMix64(base.next_u64() ^ stream.wrapping_mul(Self::GAMMA).rotate_left(17))
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(Self::GAMMA);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in [0, 1) with 53 random bits.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::ratings::{Aliases, DateKey, GameTags, Outcome};

    fn ledger(games: &[(&str, &str, Outcome)]) -> Ledger {
        let file: Arc<str> = Arc::from("t.pgn");
        let mut ledger = Ledger::new(Aliases::default());
        for (i, &(white, black, outcome)) in games.iter().enumerate() {
            let tags = GameTags {
                white: Some(white.to_owned()),
                black: Some(black.to_owned()),
                outcome: Some(outcome),
                date: DateKey::default(),
                white_elo: None,
                black_elo: None,
            };
            ledger.add(&file, i as u64 + 1, &tags, None);
        }
        ledger
    }

    fn rating(result: &MlRatings, id: usize) -> f64 {
        result.standings[id].after
    }

    use Outcome::{BlackWins, Draw, WhiteWins};

    #[test]
    fn a_long_chain_of_players_settles_with_each_link_400_log10_3_apart() {
        // 1,000 players, each scoring 3 of 4 against the next: the ends are
        // 190,000 points apart, which a step capped at 400 points could not
        // reach in the steps allowed.
        let names: Vec<String> = (0..1000).map(|i| format!("P{i}")).collect();
        let mut games = Vec::new();
        for pair in names.windows(2) {
            let (a, b) = (pair[0].as_str(), pair[1].as_str());
            games.extend([(a, b, WhiteWins), (b, a, BlackWins), (a, b, WhiteWins), (b, a, WhiteWins)]);
        }
        let result = rate(&ledger(&games), &MlOptions::default()).expect("a finite maximum");
        let by_name: std::collections::HashMap<&str, f64> =
            result.standings.iter().map(|s| (names[s.player as usize].as_str(), s.after)).collect();
        for pair in names.windows(2) {
            let difference = by_name[pair[0].as_str()] - by_name[pair[1].as_str()];
            assert!((difference - 400.0 * 3f64.log10()).abs() < 1e-3, "{}: {difference}", pair[0]);
        }
    }

    #[test]
    fn a_chain_of_20000_players_settles_though_its_ends_are_millions_of_points_apart() {
        // Each player wins one and draws one against the next: 1.5 of 2,
        // 400 log10(3) apart, 3.8 million points from end to end (which was
        // refused as ratings running away, past a million).
        let names: Vec<String> = (0..20_000).map(|i| format!("P{i}")).collect();
        let mut games = Vec::new();
        for pair in names.windows(2) {
            let (a, b) = (pair[0].as_str(), pair[1].as_str());
            games.extend([(a, b, WhiteWins), (b, a, Draw)]);
        }
        let result = rate(&ledger(&games), &MlOptions::default()).expect("a finite maximum");
        for id in 0..names.len() - 1 {
            let difference = rating(&result, id) - rating(&result, id + 1);
            assert!((difference - 400.0 * 3f64.log10()).abs() < 1e-5, "P{id}: {difference}");
        }
        let mean = result.standings.iter().map(|s| s.after).sum::<f64>() / names.len() as f64;
        assert!((mean - 2300.0).abs() < 1e-6, "{mean}");
    }

    #[test]
    fn a_white_advantage_the_pairings_cannot_tell_from_the_ratings_is_not_estimated() {
        // A and D always had White, B and C Black: ratings 1 for A and D, 0
        // for B and C put White one point above Black in every game.
        let games = ledger(&[
            ("A", "B", WhiteWins),
            ("A", "B", BlackWins),
            ("D", "C", Draw),
            ("A", "C", Draw),
            ("D", "B", Draw),
        ]);
        let estimated = MlOptions { white_advantage: Param::Estimated, ..MlOptions::default() };
        let error = rate(&games, &estimated).unwrap_err();
        assert_eq!(error, MlError::WhiteAdvantageUnidentified);
        assert!(error.describe(games.players()).contains("cannot tell it from the ratings"));
        // With the advantage fixed they are rated.
        assert!(rate(&games, &MlOptions::default()).is_ok());
        // One game with the colours the other way round tells them apart.
        let mut more: Vec<(&str, &str, Outcome)> =
            vec![("A", "B", WhiteWins), ("A", "B", BlackWins), ("D", "C", Draw), ("A", "C", Draw), ("D", "B", Draw)];
        more.push(("C", "A", Draw));
        assert!(rate(&ledger(&more), &estimated).is_ok());
    }

    #[test]
    fn a_white_advantage_that_runs_away_with_the_ratings_is_reported_with_where_it_got() {
        // A beat B with White and B drew with White: the larger White's
        // advantage and A's lead, the likelier both results, without end.
        let games = ledger(&[("A", "B", WhiteWins), ("B", "A", Draw)]);
        let estimated = MlOptions { white_advantage: Param::Estimated, ..MlOptions::default() };
        let error = rate(&games, &estimated).unwrap_err();
        let MlError::NoConvergence { steps, white_advantage: Some((value, change)), .. } = error else {
            panic!("{error:?}")
        };
        assert_eq!(steps, NEWTON_STEPS);
        assert!(value > 1000.0 && change > 0.0, "{value} {change}");
        let message = error.describe(games.players());
        assert!(message.contains("give it with --white-advantage N"), "{message}");
        // Fixed, the same games have finite ratings.
        assert!(rate(&games, &MlOptions::default()).is_ok());
    }

    #[test]
    fn three_points_out_of_four_is_400_log10_3_above_the_opponent() {
        let games =
            ledger(&[("A", "B", WhiteWins), ("B", "A", BlackWins), ("A", "B", WhiteWins), ("B", "A", WhiteWins)]);
        let result = rate(&games, &MlOptions::default()).unwrap();
        let difference = rating(&result, 0) - rating(&result, 1);
        assert!((difference - 400.0 * 3f64.log10()).abs() < 1e-6, "{difference}");
        // The mean is fixed at 2300.
        assert!((rating(&result, 0) + rating(&result, 1) - 4600.0).abs() < 1e-6);
        // Two draws count as a win and a loss.
        let drawn = ledger(&[("A", "B", WhiteWins), ("A", "B", Draw), ("B", "A", Draw), ("A", "B", WhiteWins)]);
        let again = rate(&drawn, &MlOptions::default()).unwrap();
        assert!((rating(&again, 0) - rating(&result, 0)).abs() < 1e-6);
    }

    #[test]
    fn symmetric_results_give_equal_ratings_at_the_average() {
        let games = ledger(&[
            ("A", "B", WhiteWins),
            ("B", "C", WhiteWins),
            ("C", "A", WhiteWins),
            ("B", "A", WhiteWins),
            ("C", "B", WhiteWins),
            ("A", "C", WhiteWins),
        ]);
        let options = MlOptions { average: 1500.0, ..MlOptions::default() };
        let result = rate(&games, &options).unwrap();
        for id in 0..3 {
            assert!((rating(&result, id) - 1500.0).abs() < 1e-6, "{:?}", result.standings);
        }
        // White won every game: with the advantage estimated, that is where
        // the points went (but White scoring 100% has no finite advantage).
        let estimated = MlOptions { white_advantage: Param::Estimated, ..MlOptions::default() };
        assert_eq!(rate(&games, &estimated), Err(MlError::WhiteAdvantage));
    }

    #[test]
    fn the_white_advantage_is_estimated_from_how_white_scored() {
        // Equal players; White scores 3 of 4 in each pairing.
        let mut games = Vec::new();
        for (a, b) in [("A", "B"), ("B", "A"), ("B", "C"), ("C", "B"), ("C", "A"), ("A", "C")] {
            games.extend([(a, b, WhiteWins), (a, b, WhiteWins), (a, b, WhiteWins), (a, b, BlackWins)]);
        }
        let options = MlOptions { white_advantage: Param::Estimated, ..MlOptions::default() };
        let result = rate(&ledger(&games), &options).unwrap();
        assert!((result.white_advantage - 400.0 * 3f64.log10()).abs() < 1e-6, "{}", result.white_advantage);
        assert!((rating(&result, 0) - 2300.0).abs() < 1e-6);
        // A fixed advantage shifts expectations the same way.
        let fixed = MlOptions { white_advantage: Param::Fixed(50.0), ..MlOptions::default() };
        assert_eq!(rate(&ledger(&games), &fixed).unwrap().white_advantage, 50.0);
    }

    #[test]
    fn an_anchor_fixes_one_rating_and_the_others_keep_their_distance() {
        let games = ledger(&[
            ("A", "B", WhiteWins),
            ("A", "B", Draw),
            ("B", "C", WhiteWins),
            ("C", "B", Draw),
            ("A", "C", Draw),
        ]);
        let averaged = rate(&games, &MlOptions::default()).unwrap();
        let anchored =
            rate(&games, &MlOptions { anchor: Some(("B".to_owned(), 2000.0)), ..MlOptions::default() }).unwrap();
        assert_eq!(rating(&anchored, 1), 2000.0);
        for id in [0, 2] {
            let apart = rating(&averaged, id) - rating(&averaged, 1);
            assert!((rating(&anchored, id) - 2000.0 - apart).abs() < 1e-6);
        }
        let unknown = rate(&games, &MlOptions { anchor: Some(("Z".to_owned(), 2000.0)), ..MlOptions::default() });
        assert_eq!(unknown, Err(MlError::UnknownAnchor("Z".to_owned())));
    }

    #[test]
    fn at_the_maximum_every_player_is_expected_to_score_what_they_scored() {
        let games = ledger(&[
            ("A", "B", WhiteWins),
            ("A", "C", Draw),
            ("B", "C", WhiteWins),
            ("C", "D", BlackWins),
            ("D", "A", Draw),
            ("B", "D", Draw),
            ("C", "A", WhiteWins),
            ("D", "B", BlackWins),
        ]);
        let result = rate(&games, &MlOptions::default()).unwrap();
        let mut expected_points = [0.0; 4];
        for game in games.games() {
            let e = expected(rating(&result, game.white as usize) - rating(&result, game.black as usize));
            expected_points[game.white as usize] += e;
            expected_points[game.black as usize] += 1.0 - e;
        }
        // Ratings are rounded to a millionth of a point: close, not exact.
        for (id, points) in expected_points.iter().enumerate() {
            assert!((points - result.standings[id].record.score()).abs() < 1e-6, "{id}: {points}");
        }
    }

    #[test]
    fn players_who_never_met_are_separate_pools() {
        let games = ledger(&[("A", "B", Draw), ("C", "D", Draw), ("D", "E", WhiteWins), ("E", "C", WhiteWins)]);
        let error = rate(&games, &MlOptions::default()).unwrap_err();
        assert_eq!(error, MlError::Pools(vec![vec![2, 3, 4], vec![0, 1]]));
        let message = error.describe(games.players());
        assert!(message.contains("2 pools that never met"), "{message}");
        assert!(message.contains(r#""C", "D", "E" (3 players); "A", "B" (2 players)"#), "{message}");
    }

    #[test]
    fn a_perfect_or_a_zero_score_has_no_finite_rating() {
        let games = ledger(&[("A", "B", WhiteWins), ("B", "C", Draw), ("C", "A", BlackWins), ("C", "B", Draw)]);
        let error = rate(&games, &MlOptions::default()).unwrap_err();
        assert_eq!(error, MlError::Unbounded { perfect: vec![0], zero: vec![1, 2] });
        let message = error.describe(games.players());
        assert!(message.contains(r#""A" scored 100% against every other player met"#), "{message}");
        let lost_all = ledger(&[("A", "B", Draw), ("A", "C", WhiteWins), ("B", "C", WhiteWins)]);
        assert_eq!(
            rate(&lost_all, &MlOptions::default()).unwrap_err(),
            MlError::Unbounded { perfect: vec![0, 1], zero: vec![2] }
        );
    }

    /// A small tournament where everyone drops points to everyone.
    fn tournament() -> Ledger {
        let mut games = Vec::new();
        for round in 0..4 {
            for (a, b) in [("A", "B"), ("B", "C"), ("C", "D"), ("D", "A"), ("A", "C"), ("B", "D")] {
                let (white, black) = if round % 2 == 0 { (a, b) } else { (b, a) };
                let outcome = match (round + a.len() * 3 + b.as_bytes()[0] as usize) % 3 {
                    0 => WhiteWins,
                    1 => Draw,
                    _ => BlackWins,
                };
                games.push((white, black, outcome));
            }
        }
        ledger(&games)
    }

    #[test]
    fn simulations_give_error_bars_that_depend_only_on_the_seed() {
        let games = tournament();
        let options = MlOptions {
            simulations: 200,
            seed: 7,
            white_advantage: Param::Estimated,
            draw_rate: Param::Estimated,
            ..MlOptions::default()
        };
        let first = rate(&games, &options).unwrap();
        let errors = first.errors.clone().unwrap();
        assert!(errors.iter().all(|e| *e > 20.0 && *e < 1000.0), "{errors:?}");
        assert!(first.white_advantage_error.is_some() && first.draw_rate_error.is_some());
        assert!(first.draw_rate > 0.0 && first.draw_rate < 1.0);
        let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        assert_eq!(pool.install(|| rate(&games, &options)).unwrap(), first);
        let other_seed = rate(&games, &MlOptions { seed: 8, ..options.clone() }).unwrap();
        assert_ne!(other_seed.errors, first.errors);
        // The ratings themselves do not depend on the simulations.
        assert_eq!(other_seed.standings, first.standings);
        // More games, smaller errors: the same tournament four times over.
        let mut four = Vec::new();
        for _ in 0..4 {
            four.extend(games.games().iter().map(|g| {
                let name = |id: u32| games.players()[id as usize].as_str();
                (name(g.white), name(g.black), g.outcome)
            }));
        }
        let larger = rate(&ledger(&four), &options).unwrap();
        let larger_errors = larger.errors.unwrap();
        for (small, large) in errors.iter().zip(&larger_errors) {
            assert!(large < small, "{larger_errors:?} against {errors:?}");
        }
    }

    #[test]
    fn an_anchored_player_has_no_error() {
        let options = MlOptions { simulations: 50, anchor: Some(("A".to_owned(), 2500.0)), ..MlOptions::default() };
        let result = rate(&tournament(), &options).unwrap();
        let errors = result.errors.unwrap();
        assert!(errors[0].abs() < 1e-9, "{errors:?}");
        assert!(errors[1] > 0.0);
    }

    #[test]
    fn the_estimated_draw_rate_matches_the_share_of_draws_between_equal_players() {
        // Equal players, 4 draws in 6 games: every game has E = 1/2, so the
        // estimate is the share of draws.
        let games = ledger(&[
            ("A", "B", Draw),
            ("B", "A", Draw),
            ("A", "B", WhiteWins),
            ("B", "A", WhiteWins),
            ("A", "B", Draw),
            ("B", "A", Draw),
        ]);
        let options = MlOptions { draw_rate: Param::Estimated, ..MlOptions::default() };
        let result = rate(&games, &options).unwrap();
        assert!((result.draw_rate - 4.0 / 6.0).abs() < 1e-9, "{}", result.draw_rate);
    }

    #[test]
    fn draws_keep_the_expected_score() {
        for rate in [0.0, 0.3, 0.5, 0.9, 1.0] {
            for e in [0.01, 0.2, 0.5, 0.7, 0.99] {
                let draw = draw_chance(rate, e);
                let (win, loss) = (e - draw / 2.0, 1.0 - e - draw / 2.0);
                assert!(win >= -1e-15 && loss >= -1e-15 && draw >= 0.0, "{rate} {e}");
                assert!((win + draw / 2.0 - e).abs() < 1e-12);
            }
        }
        assert_eq!(draw_chance(0.4, 0.5), 0.4);
    }

    #[test]
    fn splitmix_streams_are_reproducible_and_distinct() {
        let mut a = SplitMix64::new(1, 0);
        let mut b = SplitMix64::new(1, 0);
        let mut c = SplitMix64::new(1, 1);
        let first: Vec<u64> = (0..4).map(|_| a.next_u64()).collect();
        assert_eq!(first, (0..4).map(|_| b.next_u64()).collect::<Vec<_>>());
        assert_ne!(first, (0..4).map(|_| c.next_u64()).collect::<Vec<_>>());
        // The reference sequence of SplitMix64 from state 0.
        let mut zero = SplitMix64(0);
        assert_eq!(zero.next_u64(), 0xE220_A839_7B1D_CDAF);
        let mut unit = SplitMix64::new(3, 3);
        let mean = (0..10_000).map(|_| unit.unit()).sum::<f64>() / 10_000.0;
        assert!((mean - 0.5).abs() < 0.02, "{mean}");
    }
}
