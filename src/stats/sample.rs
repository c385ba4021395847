//! Per-operation records and the thread-local recorder that turns them into mergeable statistics.
//!
//! Every operation becomes one [`Event`]: what it was, how many bytes, when it started, when its first
//! byte arrived, when it ended (nanoseconds since the run's common epoch) and its error, if any. Errors
//! are data, not aborts. A [`Recorder`] belongs to one worker thread: it updates a histogram and
//! counters per operation kind without locking or allocating, and optionally keeps the events and
//! streams them to a writer thread.

use super::histogram::{Histogram, HistogramData};
use serde::{Deserialize, Serialize};
use std::sync::mpsc::Sender;

/// The kinds of operation storebench times. The CSV names are cloudstore's where cloudstore has one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "kebab-case")]
pub enum OpKind {
    /// Creating a file or starting an upload.
    CreateFile,
    /// Writing one block.
    UploadBlock,
    /// close() of the output stream, which completes the upload.
    CloseUpload,
    /// The whole upload: create, every block and close.
    Upload,
    /// Opening a file for reading.
    OpenForDownload,
    /// Reading one block.
    DownloadBlock,
    /// close() of the input stream.
    CloseDownload,
    /// The whole download: open, every block and close.
    Download,
    /// Renaming a file.
    Rename,
    /// Deleting a file.
    Delete,
    /// One part of a multipart upload, timed by the store from hand-over to completion.
    UploadPart,
    /// Asking whether a path exists.
    Exists,
    /// Asking a path's size and kind.
    Stat,
    /// Listing a directory or prefix.
    List,
}

impl OpKind {
    /// Every kind, in report order.
    pub const ALL: [OpKind; 14] = [
        OpKind::CreateFile,
        OpKind::UploadBlock,
        OpKind::CloseUpload,
        OpKind::Upload,
        OpKind::OpenForDownload,
        OpKind::DownloadBlock,
        OpKind::CloseDownload,
        OpKind::Download,
        OpKind::Rename,
        OpKind::Delete,
        OpKind::UploadPart,
        OpKind::Exists,
        OpKind::Stat,
        OpKind::List,
    ];

    /// The operation's name in the CSV log and in reports.
    pub fn name(self) -> &'static str {
        match self {
            OpKind::CreateFile => "create-file",
            OpKind::UploadBlock => "upload-block",
            OpKind::CloseUpload => "close-upload",
            OpKind::Upload => "upload",
            OpKind::OpenForDownload => "open-for-download",
            OpKind::DownloadBlock => "download-block",
            OpKind::CloseDownload => "close-download",
            OpKind::Download => "download",
            OpKind::Rename => "rename",
            OpKind::Delete => "delete",
            OpKind::UploadPart => "upload-part",
            OpKind::Exists => "exists",
            OpKind::Stat => "stat",
            OpKind::List => "list",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// One timed operation. Times are nanoseconds since the run's epoch, shared by all workers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Event {
    /// What the operation was.
    pub op: OpKind,
    /// Bytes moved by the operation (0 for metadata operations).
    pub bytes: u64,
    /// Offset in the file of the first byte moved.
    pub offset: u64,
    /// When the call started, ns since the run's epoch.
    pub start_ns: u64,
    /// When the first byte was available, ns since the epoch (equal to `end_ns` where the store cannot tell).
    pub first_byte_ns: u64,
    /// When the call returned, ns since the epoch.
    pub end_ns: u64,
    /// The error, when the operation failed.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub error: Option<String>,
}

impl Event {
    /// The operation's duration in nanoseconds.
    pub fn duration_ns(&self) -> u64 {
        self.end_ns.saturating_sub(self.start_ns)
    }
}

/// Counters and a latency histogram for one kind of operation.
#[derive(Clone, Debug, Default)]
pub struct OpAccumulator {
    /// Latencies of the successful operations.
    pub latency: Histogram,
    /// Time to first byte of the successful operations.
    pub first_byte: Histogram,
    /// Successful operations.
    pub ok: u64,
    /// Failed operations.
    pub errors: u64,
    /// Bytes moved by successful operations.
    pub bytes: u64,
    /// Earliest start of any operation of this kind (ns since the epoch).
    pub first_start_ns: Option<u64>,
    /// Latest end of any operation of this kind (ns since the epoch).
    pub last_end_ns: Option<u64>,
}

impl OpAccumulator {
    fn add(&mut self, e: &Event) {
        if e.error.is_some() {
            self.errors += 1;
        } else {
            self.ok += 1;
            self.bytes += e.bytes;
            self.latency.record(e.duration_ns());
            self.first_byte.record(e.first_byte_ns.saturating_sub(e.start_ns));
        }
        self.first_start_ns = Some(self.first_start_ns.map_or(e.start_ns, |s| s.min(e.start_ns)));
        self.last_end_ns = Some(self.last_end_ns.map_or(e.end_ns, |s| s.max(e.end_ns)));
    }

    /// Adds another accumulator of the same kind (another thread's or rank's).
    pub fn merge(&mut self, o: &OpAccumulator) {
        self.latency.merge(&o.latency);
        self.first_byte.merge(&o.first_byte);
        self.ok += o.ok;
        self.errors += o.errors;
        self.bytes += o.bytes;
        self.first_start_ns = match (self.first_start_ns, o.first_start_ns) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        self.last_end_ns = match (self.last_end_ns, o.last_end_ns) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
    }
}

/// A worker's recorder: one accumulator per operation kind, optionally the events themselves, and
/// optionally a channel to a streaming writer (the CSV log). Recording never locks; it allocates only
/// when the kept-events vector outgrows the capacity reserved up front.
#[derive(Debug)]
pub struct Recorder {
    ops: Vec<OpAccumulator>,
    events: Option<Vec<Event>>,
    sampling: EventSampling,
    sink: Option<Sender<Event>>,
}

/// Events a report keeps at most: a run of more keeps every `stride`-th (docs/metrics.md). About 5 MiB.
pub const EVENT_CAP: usize = 65_536;

/// How a report's event list was sampled from the run's events: every `stride`-th of `total`, so that at
/// most `cap` are kept (the statistics and the CSV log cover every event).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventSampling {
    /// Events the run recorded.
    pub total: u64,
    /// Events kept.
    pub kept: u64,
    /// One kept in this many (1: all).
    pub stride: u64,
    /// The cap.
    pub cap: u64,
}

impl Recorder {
    /// A recorder that keeps statistics only.
    pub fn new() -> Self {
        Self {
            ops: vec![OpAccumulator::default(); OpKind::ALL.len()],
            events: None,
            sampling: EventSampling::default(),
            sink: None,
        }
    }

    /// Also keeps the events, at most `cap` of them: when the list is full every other one is dropped
    /// and from then on one in twice as many is kept, so the list stays spread evenly over the run.
    pub fn keep_events(mut self, cap: usize) -> Self {
        let cap = cap.max(2);
        self.events = Some(Vec::with_capacity(cap.min(4096)));
        self.sampling = EventSampling { total: 0, kept: 0, stride: 1, cap: cap as u64 };
        self
    }

    /// How the kept events were sampled (`cap` 0 when none are kept).
    pub fn sampling(&self) -> EventSampling {
        EventSampling { kept: self.events().len() as u64, ..self.sampling }
    }

    /// Also sends every event to a writer thread.
    pub fn with_sink(mut self, sink: Option<Sender<Event>>) -> Self {
        self.sink = sink;
        self
    }

    /// Records one operation.
    pub fn record(&mut self, e: Event) {
        self.ops[e.op.index()].add(&e);
        if let Some(sink) = &self.sink {
            // A writer that has gone away must not stop the measurement.
            let _ = sink.send(e.clone());
        }
        if let Some(events) = &mut self.events {
            let s = &mut self.sampling;
            if s.total % s.stride == 0 {
                if events.len() as u64 >= s.cap {
                    let mut i = 0;
                    events.retain(|_| {
                        i += 1;
                        i % 2 == 1
                    });
                    s.stride *= 2;
                }
                if s.total % s.stride == 0 {
                    events.push(e);
                }
            }
            s.total += 1;
        }
    }

    /// The accumulator of one kind.
    pub fn op(&self, kind: OpKind) -> &OpAccumulator {
        &self.ops[kind.index()]
    }

    /// The kept events (empty unless [`Recorder::keep_events`] was asked for).
    pub fn events(&self) -> &[Event] {
        self.events.as_deref().unwrap_or(&[])
    }

    /// Adds another worker's statistics and events; events are kept in completion order (a stable sort
    /// by end time, so an operation recorded after its parts stays after them).
    pub fn merge(&mut self, other: Recorder) {
        for (a, b) in self.ops.iter_mut().zip(other.ops.iter()) {
            a.merge(b);
        }
        self.sampling.total += other.sampling.total;
        self.sampling.stride = self.sampling.stride.max(other.sampling.stride);
        self.sampling.cap = self.sampling.cap.max(other.sampling.cap);
        if let Some(theirs) = other.events {
            match &mut self.events {
                Some(mine) if !mine.is_empty() => {
                    mine.extend(theirs);
                    mine.sort_by_key(|e| e.end_ns);
                }
                _ => self.events = Some(theirs),
            }
        }
    }

    /// Drops the sink so the writer thread sees the end of the stream.
    pub fn close_sink(&mut self) {
        self.sink = None;
    }
}

/// One accumulator in serialized form: what a rank sends rank 0 (a few KiB, whatever the count).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AccumulatorData {
    /// The kind of operation.
    pub op: OpKind,
    /// Latencies of the successful operations.
    pub latency: HistogramData,
    /// Times to first byte of the successful operations.
    pub first_byte: HistogramData,
    /// Successful operations.
    pub ok: u64,
    /// Failed operations.
    pub errors: u64,
    /// Bytes moved by successful operations.
    pub bytes: u64,
    /// Earliest start, ns since the epoch.
    pub first_start_ns: Option<u64>,
    /// Latest end, ns since the epoch.
    pub last_end_ns: Option<u64>,
}

impl Recorder {
    /// The statistics (not the events) in serialized form: only the kinds that occurred.
    pub fn to_data(&self) -> Vec<AccumulatorData> {
        OpKind::ALL
            .iter()
            .zip(&self.ops)
            .filter(|(_, a)| a.ok + a.errors > 0)
            .map(|(&op, a)| AccumulatorData {
                op,
                latency: a.latency.to_data(),
                first_byte: a.first_byte.to_data(),
                ok: a.ok,
                errors: a.errors,
                bytes: a.bytes,
                first_start_ns: a.first_start_ns,
                last_end_ns: a.last_end_ns,
            })
            .collect()
    }

    /// Adds statistics in serialized form (another rank's) to this recorder.
    pub fn merge_data(&mut self, data: &[AccumulatorData]) -> Result<(), String> {
        for d in data {
            let acc = OpAccumulator {
                latency: Histogram::from_data(&d.latency)?,
                first_byte: Histogram::from_data(&d.first_byte)?,
                ok: d.ok,
                errors: d.errors,
                bytes: d.bytes,
                first_start_ns: d.first_start_ns,
                last_end_ns: d.last_end_ns,
            };
            self.ops[d.op.index()].merge(&acc);
        }
        Ok(())
    }
}

impl Default for Recorder {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(op: OpKind, bytes: u64, start: u64, end: u64, error: Option<&str>) -> Event {
        Event {
            op,
            bytes,
            offset: 0,
            start_ns: start,
            first_byte_ns: start + 1,
            end_ns: end,
            error: error.map(String::from),
        }
    }

    #[test]
    fn kept_events_are_capped_and_spread_over_the_run() {
        let mut r = Recorder::new().keep_events(4);
        for i in 0..10u64 {
            r.record(ev(OpKind::UploadBlock, 1, i, i + 1, None));
        }
        // Full at 4 (0..3): halved to 0, 2, then every 2nd: 4, 6; full again: 0, 4, then every 4th: 8.
        let starts: Vec<u64> = r.events().iter().map(|e| e.start_ns).collect();
        assert_eq!(starts, [0, 4, 8]);
        assert_eq!(r.sampling(), EventSampling { total: 10, kept: 3, stride: 4, cap: 4 });
        // Statistics cover every event.
        assert_eq!(r.op(OpKind::UploadBlock).ok, 10);
        assert_eq!(Recorder::new().keep_events(100).sampling().stride, 1);
    }

    #[test]
    fn errors_are_counted_not_timed() {
        let mut r = Recorder::new().keep_events(4);
        r.record(ev(OpKind::UploadBlock, 10, 0, 100, None));
        r.record(ev(OpKind::UploadBlock, 10, 100, 300, None));
        r.record(ev(OpKind::UploadBlock, 10, 300, 310, Some("disk full")));
        let acc = r.op(OpKind::UploadBlock);
        assert_eq!((acc.ok, acc.errors, acc.bytes), (2, 1, 20));
        assert_eq!(acc.latency.count(), 2);
        assert_eq!(acc.latency.sum(), 300);
        assert_eq!((acc.first_start_ns, acc.last_end_ns), (Some(0), Some(310)));
        assert_eq!(r.events().len(), 3);
    }

    #[test]
    fn merged_counts_equal_the_sum_of_workers() {
        let mut a = Recorder::new().keep_events(2);
        let mut b = Recorder::new().keep_events(2);
        a.record(ev(OpKind::DownloadBlock, 5, 50, 60, None));
        b.record(ev(OpKind::DownloadBlock, 7, 10, 90, None));
        b.record(ev(OpKind::Delete, 0, 95, 99, None));
        a.merge(b);
        let acc = a.op(OpKind::DownloadBlock);
        assert_eq!((acc.ok, acc.bytes), (2, 12));
        assert_eq!((acc.first_start_ns, acc.last_end_ns), (Some(10), Some(90)));
        assert_eq!(a.op(OpKind::Delete).ok, 1);
        let ends: Vec<u64> = a.events().iter().map(|e| e.end_ns).collect();
        assert_eq!(ends, vec![60, 90, 99]);
    }

    #[test]
    fn serialized_statistics_merge_like_the_recorders_themselves() {
        let mut a = Recorder::new();
        let mut b = Recorder::new();
        a.record(ev(OpKind::Upload, 100, 0, 1_000, None));
        b.record(ev(OpKind::Upload, 50, 200, 3_200, None));
        b.record(ev(OpKind::Upload, 0, 300, 400, Some("refused")));
        b.record(ev(OpKind::Stat, 0, 10, 20, None));
        // Through JSON, as a rank sends it.
        let wire = serde_json::to_vec(&b.to_data()).unwrap();
        let mut via_data = Recorder::new();
        via_data.record(ev(OpKind::Upload, 100, 0, 1_000, None));
        via_data.merge_data(&serde_json::from_slice::<Vec<AccumulatorData>>(&wire).unwrap()).unwrap();
        a.merge(b);
        for k in OpKind::ALL {
            let (x, y) = (a.op(k), via_data.op(k));
            assert_eq!((x.ok, x.errors, x.bytes), (y.ok, y.errors, y.bytes), "{k:?}");
            assert_eq!((x.first_start_ns, x.last_end_ns), (y.first_start_ns, y.last_end_ns));
            assert_eq!(x.latency, y.latency);
        }
        let up = via_data.op(OpKind::Upload);
        assert_eq!((up.ok, up.errors, up.bytes, up.latency.sum()), (2, 1, 150, 4_000));
        assert_eq!((up.first_start_ns, up.last_end_ns), (Some(0), Some(3_200)));
        // Only the kinds that occurred travel.
        assert_eq!(a.to_data().len(), 2);
    }

    #[test]
    fn sink_receives_every_event() {
        let (tx, rx) = std::sync::mpsc::channel();
        let mut r = Recorder::new().with_sink(Some(tx));
        r.record(ev(OpKind::Rename, 0, 1, 2, None));
        r.record(ev(OpKind::Delete, 0, 3, 4, None));
        r.close_sink();
        drop(r);
        let got: Vec<OpKind> = rx.iter().map(|e| e.op).collect();
        assert_eq!(got, vec![OpKind::Rename, OpKind::Delete]);
    }
}
