//! Writing an HDFS file: a stream over hdfs-native's writer, with hflush and timed close.

#[allow(unused_imports)]
use super::*;

pub(super) struct HdfsWrite {
    pub(super) writer: Option<hdfs_native::file::FileWriter>,
    pub(super) client: Arc<Client>,
    pub(super) rt: Arc<Runtime>,
    pub(super) counts: Arc<Counts>,
    /// The HDFS path.
    pub(super) path: String,
    /// hdfs://authority/path, for messages.
    pub(super) shown: String,
    pub(super) fsync_on_close: bool,
    /// Appending to an existing file: abort keeps the file (what was there before is not storebench's).
    pub(super) appending: bool,
    pub(super) written: u64,
    pub(super) hsyncs: u64,
    pub(super) block_size: Option<u64>,
}

impl HdfsWrite {
    fn err(&self, op: &'static str, e: HdfsError) -> StoreError {
        self.counts.errors.inc();
        map_err(op, &self.shown, DATANODE, e)
    }

    fn hsync(&mut self) -> Result<(), StoreError> {
        let Some(w) = self.writer.as_mut() else { return Ok(()) };
        let r = self.rt.block_on(w.hsync());
        self.hsyncs += 1;
        self.counts.hsyncs.inc();
        r.map_err(|e| self.err("hsync", e))
    }

    /// Drops the writer (its lease goes with it) and deletes what storebench wrote.
    fn discard(&mut self) -> Result<(), StoreError> {
        let Some(mut w) = self.writer.take() else { return Ok(()) };
        if self.appending {
            // Complete what was appended so far; the file was there before storebench.
            return self.rt.block_on(w.close()).map_err(|e| self.err("close the abandoned append to", e));
        }
        drop(w);
        self.counts.rpc_delete.inc();
        match self.rt.block_on(self.client.delete(&self.path, false)) {
            Ok(_) => Ok(()),
            Err(e) => Err(self.err("delete the abandoned", e)),
        }
    }
}

impl WriteStream for HdfsWrite {
    fn write(&mut self, buf: &[u8]) -> Result<(), StoreError> {
        let Some(w) = self.writer.as_mut() else {
            return Err(StoreError::Failed {
                op: "write",
                path: self.shown.clone(),
                detail: "the stream is closed".into(),
            });
        };
        let r = self.rt.block_on(w.write_bytes(Bytes::copy_from_slice(buf)));
        if let Err(e) = r {
            return Err(self.err("write", e));
        }
        self.written += buf.len() as u64;
        self.counts.bytes_written.add(buf.len() as u64);
        Ok(())
    }

    fn flush(&mut self) -> Result<(), StoreError> {
        Ok(()) // Hadoop's DFSOutputStream.flush() sends nothing either; hflush() does.
    }

    fn hflush(&mut self) -> Result<(), StoreError> {
        self.hsync()
    }

    fn close(mut self: Box<Self>) -> Result<Closed, StoreError> {
        let result = (|| {
            if self.fsync_on_close {
                self.hsync()?;
            }
            let Some(w) = self.writer.as_mut() else { return Ok(()) };
            let r = self.rt.block_on(w.close());
            r.map_err(|e| self.err("close", e))
        })();
        if let Err(e) = result {
            // A file that cannot be completed is storebench's to remove.
            let _ = self.discard();
            return Err(e);
        }
        self.writer = None;
        let blocks = self.block_size.map_or(0, |b| self.written.div_ceil(b));
        self.counts.files_closed.inc();
        self.counts.blocks_written.add(blocks);
        let mut counters = vec![("bytes_written".into(), self.written), ("hsync_calls".into(), self.hsyncs)];
        if let Some(b) = self.block_size {
            counters.push(("block_size".into(), b));
            counters.push(("blocks".into(), blocks));
        }
        Ok(Closed { counters, parts: Vec::new() })
    }

    fn abort(mut self: Box<Self>) -> Result<(), StoreError> {
        self.discard()
    }
}

impl Drop for HdfsWrite {
    fn drop(&mut self) {
        // A stream dropped without close() or abort() (an early return) leaves no half-written file.
        let _ = self.discard();
    }
}
