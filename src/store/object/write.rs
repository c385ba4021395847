//! Writing an object: a single PUT, or a multipart upload with bounded parts in flight (s3a's
//! behaviour); an upload that does not complete is aborted.

#[allow(unused_imports)]
use super::*;

pub(super) struct ObjWrite {
    pub(super) obj: Object,
    pub(super) buf: Vec<u8>,
    pub(super) part_size: usize,
    pub(super) active_blocks: usize,
    pub(super) upload: Option<Box<dyn MultipartUpload>>,
    pub(super) inflight: Vec<JoinHandle<(object_store::Result<()>, SubOp)>>,
    pub(super) written: u64,
    pub(super) parts: u64,
    pub(super) part_times: Vec<SubOp>,
    /// The object must not exist when the upload completes (no --overwrite).
    pub(super) create_only: bool,
}

impl ObjWrite {
    /// Sends one part; waits for a part to finish when `active_blocks` are in flight.
    fn send_part(&mut self, data: Vec<u8>) -> Result<(), StoreError> {
        if self.upload.is_none() {
            self.obj.counts.multipart_started.inc();
            let up = self
                .obj
                .rt
                .block_on(self.obj.store.put_multipart(&self.obj.key))
                .map_err(|e| self.obj.err("start multipart upload of", e))?;
            self.upload = Some(up);
        }
        while self.inflight.len() >= self.active_blocks {
            self.wait_any()?;
        }
        let n = data.len() as u64;
        let offset = self.parts * self.part_size as u64;
        let body = self.obj.parts.body(data);
        let fut = self.upload.as_mut().map(|u| u.put_part(PutPayload::from(body)));
        if let Some(fut) = fut {
            // Each part is timed from the moment it is handed to the client to its completion.
            let start = Instant::now();
            self.inflight.push(self.obj.rt.spawn(async move {
                let r = fut.await;
                (r, SubOp { bytes: n, offset, start, end: Instant::now() })
            }));
        }
        self.parts += 1;
        self.obj.counts.multipart_parts.inc();
        self.obj.counts.bytes_put.add(n);
        Ok(())
    }

    /// Waits until one of the parts in flight is done, whichever ends first: a slow part does not
    /// hold back the next while others have finished behind it.
    fn wait_any(&mut self) -> Result<(), StoreError> {
        if self.inflight.is_empty() {
            return Ok(());
        }
        let handles: Vec<_> = self.inflight.drain(..).collect();
        let (done, _, rest) = self.obj.rt.block_on(futures::future::select_all(handles));
        self.inflight = rest;
        match done {
            Ok((Ok(()), timing)) => self.part_times.push(timing),
            Ok((Err(e), _)) => return Err(self.obj.err("upload part of", e)),
            Err(e) => return Err(self.obj.lost("upload part of", e)),
        }
        Ok(())
    }

    fn abort_upload(&mut self) {
        for h in self.inflight.drain(..) {
            h.abort();
        }
        if let Some(mut up) = self.upload.take() {
            self.obj.counts.multipart_aborted.inc();
            let _ = self.obj.rt.block_on(up.abort());
        }
    }
}

impl WriteStream for ObjWrite {
    fn write(&mut self, data: &[u8]) -> Result<(), StoreError> {
        let mut rest = data;
        while !rest.is_empty() {
            let room = self.part_size - self.buf.len();
            let n = room.min(rest.len());
            self.buf.extend_from_slice(&rest[..n]);
            rest = &rest[n..];
            if self.buf.len() == self.part_size {
                let part = std::mem::replace(&mut self.buf, self.obj.parts.take(self.part_size));
                if let Err(e) = self.send_part(part) {
                    self.abort_upload();
                    return Err(e);
                }
            }
        }
        self.written += data.len() as u64;
        Ok(())
    }

    fn flush(&mut self) -> Result<(), StoreError> {
        Ok(()) // s3a: flush() does nothing until the part is full
    }

    fn hflush(&mut self) -> Result<(), StoreError> {
        Err(StoreError::Unsupported(format!(
            "{} cannot make data durable before close() (object stores publish an object whole): drop --hflush",
            self.obj.path
        )))
    }

    fn close(mut self: Box<Self>) -> Result<Closed, StoreError> {
        let result = (|| {
            if self.upload.is_none() {
                let data = std::mem::take(&mut self.buf);
                self.obj.counts.requests_put.inc();
                self.obj.counts.bytes_put.add(data.len() as u64);
                let payload = PutPayload::from(self.obj.parts.body(data));
                // Without --overwrite the PUT is conditional (If-None-Match: *), so an object another
                // writer created after create() checked is never replaced. Servers without conditional
                // PUTs get a plain one (create() already looked).
                let mode = if self.create_only { PutMode::Create } else { PutMode::Overwrite };
                let opts = PutOptions { mode, ..Default::default() };
                let r = match self.obj.rt.block_on(self.obj.store.put_opts(&self.obj.key, payload.clone(), opts)) {
                    Err(object_store::Error::NotImplemented) => {
                        self.obj.rt.block_on(self.obj.store.put(&self.obj.key, payload))
                    }
                    r => r,
                };
                return match r {
                    Ok(_) => Ok(()),
                    Err(object_store::Error::AlreadyExists { .. }) => Err(StoreError::Failed {
                        op: "put",
                        path: self.obj.path.clone(),
                        detail: "another writer created it during the run; storebench did not replace it".into(),
                    }),
                    Err(e) => Err(self.obj.err("put", e)),
                };
            }
            if !self.buf.is_empty() {
                let last = std::mem::take(&mut self.buf);
                self.send_part(last)?;
            }
            while !self.inflight.is_empty() {
                self.wait_any()?;
            }
            let mut up = self.upload.take().ok_or_else(|| StoreError::Unsupported("no upload".into()))?;
            match self.obj.rt.block_on(up.complete()) {
                Ok(_) => {
                    self.obj.counts.multipart_completed.inc();
                    Ok(())
                }
                Err(e) => {
                    self.upload = Some(up);
                    Err(self.obj.err("complete multipart upload of", e))
                }
            }
        })();
        if let Err(e) = result {
            self.abort_upload();
            return Err(e);
        }
        let counters = vec![
            ("bytes_written".into(), self.written),
            ("multipart_parts".into(), self.parts),
            ("part_size".into(), self.part_size as u64),
            ("active_blocks".into(), self.active_blocks as u64),
        ];
        Ok(Closed { counters, parts: std::mem::take(&mut self.part_times) })
    }

    fn abort(mut self: Box<Self>) -> Result<(), StoreError> {
        self.abort_upload();
        Ok(())
    }
}

impl Drop for ObjWrite {
    fn drop(&mut self) {
        // An upload dropped without close() or abort() (a panic, an early return) is aborted too.
        self.abort_upload();
    }
}
