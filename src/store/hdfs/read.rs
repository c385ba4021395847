//! Reading an HDFS file: positioned and streaming reads, with prefetch.

#[allow(unused_imports)]
use super::*;

pub(super) struct HdfsRead {
    pub(super) reader: Arc<hdfs_native::file::FileReader>,
    pub(super) rt: Arc<Runtime>,
    pub(super) counts: Arc<Counts>,
    pub(super) shown: String,
    pub(super) len: u64,
    /// The streaming read (read_next) and what is left of its last packet.
    pub(super) stream: Option<BoxStream<'static, hdfs_native::Result<Bytes>>>,
    pub(super) leftover: Bytes,
    pub(super) next: u64,
    pub(super) datanode_reads: u64,
}

impl HdfsRead {
    fn err(&self, op: &'static str, e: HdfsError) -> StoreError {
        self.counts.errors.inc();
        map_err(op, &self.shown, DATANODE, e)
    }

    fn range(&mut self, offset: u64, len: usize) -> BoxStream<'static, hdfs_native::Result<Bytes>> {
        self.datanode_reads += 1;
        self.counts.datanode_reads.inc();
        self.reader.read_range_stream(offset as usize, len).boxed()
    }

    /// Hands `sink` the next `max` bytes from the leftover and the stream (fewer where it ends).
    fn drain(
        &mut self,
        stream: &mut BoxStream<'static, hdfs_native::Result<Bytes>>,
        max: usize,
        sink: &mut dyn FnMut(&[u8]),
    ) -> Result<ReadInfo, StoreError> {
        let (done, first) = match super::asyncio::drain(&self.rt, stream, &mut self.leftover, max, sink) {
            Ok(r) => r,
            Err(super::asyncio::DrainError::Stream(e)) => return Err(self.err("read", e)),
            Err(super::asyncio::DrainError::Lost(e)) => {
                return Err(StoreError::Failed { op: "read", path: self.shown.clone(), detail: e.to_string() })
            }
        };
        self.counts.bytes_read.add(done as u64);
        Ok(ReadInfo { bytes: done, first_byte: first.unwrap_or_else(Instant::now) })
    }

    /// The streaming read from offset 0, `max` bytes at a time.
    fn next_with(&mut self, max: usize, sink: &mut dyn FnMut(&[u8])) -> Result<ReadInfo, StoreError> {
        if self.stream.is_none() {
            if self.next >= self.len {
                return Ok(ReadInfo { bytes: 0, first_byte: Instant::now() });
            }
            let s = self.range(self.next, (self.len - self.next) as usize);
            self.stream = Some(s);
        }
        let mut s = self.stream.take().unwrap_or_else(|| futures::stream::empty().boxed());
        let r = self.drain(&mut s, max, sink);
        if let Ok(info) = &r {
            self.next += info.bytes as u64;
            if info.bytes > 0 {
                self.stream = Some(s);
            }
        }
        r
    }
}

impl ReadStream for HdfsRead {
    fn len(&self) -> u64 {
        self.len
    }

    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> Result<ReadInfo, StoreError> {
        let n = (buf.len() as u64).min(self.len.saturating_sub(offset)) as usize;
        if n == 0 {
            return Ok(ReadInfo { bytes: 0, first_byte: Instant::now() });
        }
        // A positioned read has its own stream; the streaming read keeps its place.
        let saved = std::mem::take(&mut self.leftover);
        let mut s = self.range(offset, n);
        let r = self.drain(&mut s, n, &mut super::asyncio::copy_into(buf));
        self.leftover = saved;
        r
    }

    fn read_next(&mut self, buf: &mut [u8]) -> Result<ReadInfo, StoreError> {
        let max = buf.len();
        self.next_with(max, &mut super::asyncio::copy_into(buf))
    }

    fn read_next_with(&mut self, buf: &mut [u8], sink: &mut dyn FnMut(&[u8])) -> Result<ReadInfo, StoreError> {
        self.next_with(buf.len(), sink)
    }

    fn read_vector(&mut self, offsets: &[u64], bufs: &mut [&mut [u8]]) -> Result<Vec<usize>, StoreError> {
        // Every range at once (up to 10 in flight), each from its DataNode, as Hadoop's readVectored.
        let jobs: Vec<(u64, usize)> = offsets
            .iter()
            .zip(bufs.iter())
            .map(|(&o, b)| (o, (b.len() as u64).min(self.len.saturating_sub(o)) as usize))
            .collect();
        let reader = self.reader.clone();
        let fetched: Vec<hdfs_native::Result<Bytes>> = self.rt.block_on(async move {
            futures::stream::iter(jobs.into_iter().map(|(o, n)| {
                let reader = reader.clone();
                async move {
                    if n == 0 {
                        return Ok(Bytes::new());
                    }
                    reader.read_range(o as usize, n).await
                }
            }))
            .buffered(10)
            .collect()
            .await
        });
        let mut got = Vec::with_capacity(bufs.len());
        for (data, buf) in fetched.into_iter().zip(bufs.iter_mut()) {
            let data = data.map_err(|e| self.err("read", e))?;
            self.datanode_reads += 1;
            self.counts.datanode_reads.inc();
            buf[..data.len()].copy_from_slice(&data);
            self.counts.bytes_read.add(data.len() as u64);
            got.push(data.len());
        }
        Ok(got)
    }

    fn close(self: Box<Self>) -> Result<Counters, StoreError> {
        Ok(vec![("datanode_reads".into(), self.datanode_reads)])
    }
}
