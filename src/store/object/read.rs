//! Reading an object: ranged GETs, streaming reads, and prefetching GETs ahead of the reader.

#[allow(unused_imports)]
use super::*;

pub(super) type Fetch = JoinHandle<object_store::Result<Bytes>>;

pub(super) struct ObjRead {
    pub(super) obj: Object,
    pub(super) prefetch: Option<Prefetch>,
    /// Block GETs under way, by offset.
    pub(super) ahead: std::collections::BTreeMap<u64, Fetch>,
    /// The next offset to schedule a prefetch for.
    pub(super) scheduled_to: u64,
    pub(super) prefetch_hits: u64,
    pub(super) len: u64,
    pub(super) stream: Option<BoxStream<'static, object_store::Result<Bytes>>>,
    pub(super) leftover: Bytes,
    pub(super) gets: u64,
}

impl ObjRead {
    /// Starts GETs for the blocks from `offset` up to `depth` blocks past it.
    fn schedule(&mut self, offset: u64, p: Prefetch) {
        let limit = p.window_end(offset, self.len);
        let mut at = self.scheduled_to.max(offset);
        while at < limit {
            let end = (at + p.block).min(self.len);
            let (store, key) = (self.obj.store.clone(), self.obj.key.clone());
            self.gets += 1;
            self.obj.counts.requests_get.inc();
            self.ahead.insert(
                at,
                self.obj.rt.spawn(async move {
                    let opts = GetOptions { range: Some(GetRange::Bounded(at..end)), ..Default::default() };
                    store.get_opts(&key, opts).await?.bytes().await
                }),
            );
            at = end;
        }
        self.scheduled_to = at;
    }

    /// Reads a block through the prefetch queue.
    fn read_prefetched(&mut self, offset: u64, p: Prefetch, buf: &mut [u8]) -> Result<ReadInfo, StoreError> {
        if self.ahead.contains_key(&offset) {
            self.prefetch_hits += 1;
        } else if offset % p.block != 0 || offset < self.scheduled_to {
            // Not a block this queue holds: drop the queue and start over from here.
            for (_, h) in std::mem::take(&mut self.ahead) {
                h.abort();
            }
            self.scheduled_to = offset;
        }
        self.schedule(offset, p);
        let Some(h) = self.ahead.remove(&offset) else {
            return Ok(ReadInfo { bytes: 0, first_byte: Instant::now() });
        };
        let data = match self.obj.rt.block_on(h) {
            Ok(Ok(b)) => b,
            Ok(Err(e)) => return Err(self.obj.err("get", e)),
            Err(e) => return Err(self.obj.lost("get", e)),
        };
        let first = Instant::now();
        let n = data.len().min(buf.len());
        buf[..n].copy_from_slice(&data[..n]);
        self.obj.counts.bytes_get.add(n as u64);
        Ok(ReadInfo { bytes: n, first_byte: first })
    }

    fn start_get(
        &mut self,
        range: std::ops::Range<u64>,
    ) -> Result<BoxStream<'static, object_store::Result<Bytes>>, StoreError> {
        self.gets += 1;
        self.obj.counts.requests_get.inc();
        let opts = GetOptions { range: Some(GetRange::Bounded(range)), ..Default::default() };
        let r =
            self.obj.rt.block_on(self.obj.store.get_opts(&self.obj.key, opts)).map_err(|e| self.obj.err("get", e))?;
        Ok(r.into_stream())
    }

    /// Hands `sink` the next `max` bytes from the leftover and the stream (fewer where it ends).
    fn drain(
        &mut self,
        mut stream: BoxStream<'static, object_store::Result<Bytes>>,
        max: usize,
        sink: &mut dyn FnMut(&[u8]),
        keep: bool,
    ) -> Result<ReadInfo, StoreError> {
        let (done, first) = match super::asyncio::drain(&self.obj.rt, &mut stream, &mut self.leftover, max, sink) {
            Ok(r) => r,
            Err(super::asyncio::DrainError::Stream(e)) => return Err(self.obj.err("get", e)),
            Err(super::asyncio::DrainError::Lost(e)) => return Err(self.obj.lost("get", e)),
        };
        if keep {
            self.stream = Some(stream);
        } else {
            self.leftover = Bytes::new();
        }
        self.obj.counts.bytes_get.add(done as u64);
        Ok(ReadInfo { bytes: done, first_byte: first.unwrap_or_else(Instant::now) })
    }

    /// The streaming read: one GET of the whole object, handed out `max` bytes at a time.
    fn read_next_with_max(&mut self, max: usize, sink: &mut dyn FnMut(&[u8])) -> Result<ReadInfo, StoreError> {
        let stream = match self.stream.take() {
            Some(s) => s,
            None if self.gets == 0 && self.len > 0 => self.start_get(0..self.len)?,
            None => return Ok(ReadInfo { bytes: 0, first_byte: Instant::now() }),
        };
        self.drain(stream, max, sink, true)
    }
}

impl ReadStream for ObjRead {
    fn len(&self) -> u64 {
        self.len
    }

    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> Result<ReadInfo, StoreError> {
        let end = (offset + buf.len() as u64).min(self.len);
        if offset >= end {
            return Ok(ReadInfo { bytes: 0, first_byte: Instant::now() });
        }
        if let Some(p) = self.prefetch {
            return self.read_prefetched(offset, p, buf);
        }
        let saved = std::mem::take(&mut self.leftover);
        let stream = self.start_get(offset..end)?;
        let r = self.drain(stream, buf.len(), &mut super::asyncio::copy_into(buf), false);
        self.leftover = saved;
        r
    }

    fn read_vector(&mut self, offsets: &[u64], bufs: &mut [&mut [u8]]) -> Result<Vec<usize>, StoreError> {
        let ranges: Vec<std::ops::Range<u64>> = offsets
            .iter()
            .zip(bufs.iter())
            .map(|(&o, b)| o.min(self.len)..(o + b.len() as u64).min(self.len))
            .collect();
        // As object_store's get_ranges: ranges less than 1 MiB apart merge into one GET, and up to 10
        // merged GETs run in parallel. Done here so that each GET is counted.
        let (store, key, counts) = (self.obj.store.clone(), self.obj.key.clone(), self.obj.counts.clone());
        let mut merged = 0;
        let fetch = |r: std::ops::Range<u64>| {
            merged += 1;
            counts.requests_get.inc();
            let (store, key) = (store.clone(), key.clone());
            async move { store.get_range(&key, r).await }
        };
        let data = self
            .obj
            .rt
            .block_on(object_store::coalesce_ranges(&ranges, fetch, object_store::OBJECT_STORE_COALESCE_DEFAULT))
            .map_err(|e| self.obj.err("get ranges of", e))?;
        self.gets += merged;
        let mut got = Vec::with_capacity(bufs.len());
        for (b, d) in bufs.iter_mut().zip(&data) {
            let n = d.len().min(b.len());
            b[..n].copy_from_slice(&d[..n]);
            self.obj.counts.bytes_get.add(n as u64);
            got.push(n);
        }
        Ok(got)
    }

    fn read_next(&mut self, buf: &mut [u8]) -> Result<ReadInfo, StoreError> {
        let max = buf.len();
        self.read_next_with_max(max, &mut super::asyncio::copy_into(buf))
    }

    fn read_next_with(&mut self, buf: &mut [u8], sink: &mut dyn FnMut(&[u8])) -> Result<ReadInfo, StoreError> {
        self.read_next_with_max(buf.len(), sink)
    }

    fn close(mut self: Box<Self>) -> Result<Counters, StoreError> {
        for (_, h) in std::mem::take(&mut self.ahead) {
            h.abort();
        }
        Ok(vec![
            ("get_requests".into(), self.gets),
            ("prefetch_hits".into(), self.prefetch_hits),
            ("content_length".into(), self.len),
        ])
    }
}
