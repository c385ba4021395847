//! Runs across processes (and machines) on MPI, launched by `mpirun` or Slurm's `srun`.
//!
//! The layer is small on purpose: rank 0 checks that every rank parsed the same arguments, everyone
//! waits at a barrier before each phase (so all start together; no clock sync needed), and each rank
//! sends rank 0 one serialized, mergeable result. Every wait is bounded, so a rank that failed or
//! hangs is named instead of hanging the others. Without the `mpi` feature storebench runs as one
//! process through the same calls.

use serde::{de::DeserializeOwned, Serialize};
use std::time::{Duration, Instant};

/// Environment variables launchers set, with the number of processes they started: Open MPI's
/// mpirun, MPICH's Hydra (and PMI-2 srun), and srun's job step.
const SIZE_VARS: &[&str] = &["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_STEP_NUM_TASKS"];

/// The number of processes a launcher says it started, if storebench runs under one.
pub fn launched_size() -> Option<u32> {
    SIZE_VARS.iter().find_map(|v| std::env::var(v).ok()?.parse().ok())
}

/// How long a rank waits for the others around the run (arguments, plan, barriers) by default.
pub const WAIT: Duration = Duration::from_secs(120);

/// How long a rank waits for the others once the run is under way: four times as long as the run has
/// taken so far (ranks may be that much slower than this one), and at least `WAIT`.
pub fn wait_after(began: Instant) -> Duration {
    WAIT.max(began.elapsed() * 4)
}

/// Message tags.
const TAG_ARGS: i32 = 1;
const TAG_VERDICT: i32 = 2;
const TAG_RESULT: i32 = 3;

/// This process's place in the run.
pub struct Dist {
    rank: u32,
    size: u32,
    #[cfg(feature = "mpi")]
    universe: Option<mpi::environment::Universe>,
}

impl Dist {
    /// Joins the MPI run when launched by mpirun or srun, else a run of one. Fails when launched with
    /// several processes by a storebench built without MPI.
    pub fn init() -> Result<Dist, String> {
        let launched = launched_size();
        #[cfg(feature = "mpi")]
        if launched.is_some() {
            use mpi::traits::Communicator;
            let universe = mpi::initialize().ok_or("MPI was already initialized")?;
            let world = universe.world();
            let (rank, size) = (world.rank() as u32, world.size() as u32);
            return Ok(Dist { rank, size, universe: Some(universe) });
        }
        match launched {
            Some(n) if n > 1 => Err(format!(
                "launched as one of {n} processes, but this storebench was built without MPI: build it with \
                 `cargo build --release --features mpi` (needs libclang-dev and libopenmpi-dev or MPICH)"
            )),
            _ => Ok(Dist {
                rank: 0,
                size: 1,
                #[cfg(feature = "mpi")]
                universe: None,
            }),
        }
    }

    /// This process's rank (0 leads).
    pub fn rank(&self) -> u32 {
        self.rank
    }

    /// How many processes run.
    pub fn size(&self) -> u32 {
        self.size
    }

    /// Whether this process prints and writes the results.
    pub fn leads(&self) -> bool {
        self.rank == 0
    }

    /// Rank 0 gathers every rank's `args` and answers each with the verdict: Ok when all agree, else
    /// the error (naming the rank and its first differing argument), which every rank returns.
    pub fn agree(&self, args: &[String], wait: Duration) -> Result<(), String> {
        if self.size == 1 {
            return Ok(());
        }
        let mine = args.join("\u{0}");
        if !self.leads() {
            self.send(0, TAG_ARGS, mine.as_bytes());
            // The verdict names the rank that differs; it is rank 0's word, not its failure.
            return self
                .announce(Ok(Vec::new()), wait)
                .map(|_| ())
                .map_err(|e| e.trim_start_matches("rank 0: ").to_string());
        }
        let mut verdict = String::new();
        for r in 1..self.size {
            let theirs = match self.receive(r, TAG_ARGS, wait) {
                Ok(b) => String::from_utf8_lossy(&b).into_owned(),
                Err(e) => return Err(e),
            };
            if theirs != mine && verdict.is_empty() {
                let t: Vec<&str> = theirs.split('\u{0}').collect();
                let i = args.iter().zip(&t).position(|(a, b)| a != b).unwrap_or(args.len().min(t.len()));
                verdict = format!(
                    "rank {r} was started with different arguments than rank 0: argument {} is '{}' there and \
                     '{}' here; every rank must run the same command",
                    i + 1,
                    t.get(i).unwrap_or(&"(none)"),
                    args.get(i).map_or("(none)", String::as_str)
                );
            }
        }
        self.announce(if verdict.is_empty() { Ok(Vec::new()) } else { Err(verdict) }, wait).map(|_| ())
    }

    /// Rank 0 tells every rank whether to go on (an empty message) or why not.
    pub fn verdict(&self, result: Result<(), String>, wait: Duration) -> Result<(), String> {
        self.announce(result.map(|()| Vec::new()), wait).map(|_| ())
    }

    /// Rank 0 makes a value (a plan, a layout: `make` runs there only) and every rank gets it, or
    /// the error that stops them.
    pub fn share<T: Serialize + DeserializeOwned>(
        &self,
        make: impl FnOnce() -> Result<T, String>,
        wait: Duration,
    ) -> Result<T, String> {
        if self.size == 1 {
            return make();
        }
        if self.leads() {
            let value = make();
            let bytes = match &value {
                Ok(v) => serde_json::to_vec(v).map_err(|e| format!("cannot encode what rank 0 shares: {e}")),
                Err(e) => Err(e.clone()),
            };
            self.announce(bytes, wait)?;
            return value;
        }
        let bytes = self.announce(Ok(Vec::new()), wait)?;
        serde_json::from_slice(&bytes).map_err(|e| format!("what rank 0 shared could not be read: {e}"))
    }

    /// Rank 0 sends every rank its `value` (a plan it made, a decision), or the error that stops
    /// them; every rank returns what rank 0 sent. Other ranks' `value` is not looked at.
    pub fn announce(&self, value: Result<Vec<u8>, String>, wait: Duration) -> Result<Vec<u8>, String> {
        if self.size == 1 {
            return value;
        }
        if self.leads() {
            let msg = match &value {
                Ok(v) => [&[0u8][..], v].concat(),
                Err(e) => [&[1u8][..], e.as_bytes()].concat(),
            };
            for r in 1..self.size {
                self.send(r, TAG_VERDICT, &msg);
            }
            return value;
        }
        let v = self.receive(0, TAG_VERDICT, wait)?;
        match v.split_first() {
            Some((0, rest)) => Ok(rest.to_vec()),
            Some((_, rest)) => Err(format!("rank 0: {}", String::from_utf8_lossy(rest))),
            None => Err("rank 0 sent an empty message".into()),
        }
    }

    /// Waits until every rank is here, at most `wait`.
    #[allow(unused_variables)]
    pub fn barrier(&self, wait: Duration) -> Result<(), String> {
        if self.size == 1 {
            return Ok(());
        }
        #[cfg(feature = "mpi")]
        if let Some(u) = &self.universe {
            use mpi::collective::CommunicatorCollectives;
            let mut req = u.world().immediate_barrier();
            let deadline = Instant::now() + wait;
            loop {
                match req.test() {
                    Ok(_) => return Ok(()),
                    Err(r) => req = r,
                }
                if Instant::now() > deadline {
                    // A request must not be dropped unfinished: end the whole job instead.
                    eprintln!(
                        "storebench: rank {}: not every rank reached the barrier within {} s; aborting the MPI job",
                        self.rank,
                        wait.as_secs()
                    );
                    self.abort(1);
                }
                std::thread::sleep(Duration::from_millis(2));
            }
        }
        Ok(())
    }

    /// Every rank sends `result` to rank 0, which returns them all, in rank order (its own first).
    /// A rank that does not report within `wait` is named in the error.
    pub fn gather(&self, result: Vec<u8>, wait: Duration) -> Result<Option<Vec<Vec<u8>>>, String> {
        if !self.leads() {
            self.send(0, TAG_RESULT, &result);
            return Ok(None);
        }
        let mut all = vec![result];
        for r in 1..self.size {
            all.push(self.receive(r, TAG_RESULT, wait)?);
        }
        Ok(Some(all))
    }

    /// Ends every process of the run (after a bounded wait ran out).
    pub fn abort(&self, code: i32) -> ! {
        #[cfg(feature = "mpi")]
        if let Some(u) = &self.universe {
            use mpi::traits::Communicator;
            u.world().abort(code);
        }
        std::process::exit(code)
    }

    #[allow(unused_variables)]
    fn send(&self, to: u32, tag: i32, bytes: &[u8]) {
        #[cfg(feature = "mpi")]
        if let Some(u) = &self.universe {
            use mpi::point_to_point::Destination;
            use mpi::traits::Communicator;
            u.world().process_at_rank(to as i32).send_with_tag(bytes, tag);
        }
    }

    /// One message from `from`, waiting at most `wait`.
    #[allow(unused_variables)]
    fn receive(&self, from: u32, tag: i32, wait: Duration) -> Result<Vec<u8>, String> {
        #[cfg(feature = "mpi")]
        if let Some(u) = &self.universe {
            use mpi::point_to_point::Source;
            use mpi::traits::Communicator;
            let world = u.world();
            let p = world.process_at_rank(from as i32);
            let deadline = Instant::now() + wait;
            while p.immediate_probe_with_tag(tag).is_none() {
                if Instant::now() > deadline {
                    return Err(format!(
                        "rank {from} did not answer within {} s (it may have failed or hung; see its own output)",
                        wait.as_secs()
                    ));
                }
                std::thread::sleep(Duration::from_millis(2));
            }
            return Ok(p.receive_vec_with_tag::<u8>(tag).0);
        }
        Err(format!("no rank {from}: this is a run of one process"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_of_one_goes_through_the_same_calls() {
        let d = Dist {
            rank: 0,
            size: 1,
            #[cfg(feature = "mpi")]
            universe: None,
        };
        assert!(d.leads());
        d.agree(&["a".into()], Duration::from_millis(1)).unwrap();
        d.barrier(Duration::from_millis(1)).unwrap();
        assert_eq!(d.gather(vec![7], Duration::from_millis(1)).unwrap(), Some(vec![vec![7]]));
        assert_eq!(d.verdict(Err("x".into()), Duration::from_millis(1)), Err("x".into()));
        assert_eq!(d.announce(Ok(vec![1, 2]), Duration::from_millis(1)), Ok(vec![1, 2]));
        assert_eq!(d.share(|| Ok(vec![3u8]), Duration::from_millis(1)), Ok(vec![3]));
        assert_eq!(d.share::<u8>(|| Err("no plan".into()), Duration::from_millis(1)), Err("no plan".into()));
    }
}
