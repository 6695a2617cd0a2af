//! A body's chunks as they arrive, read as one stream of bytes by a
//! decoder on a blocking thread: what lets an answer be decoded as it
//! arrives (the access settings' rows, the roles list's memberships)
//! without ever holding it whole.

/// The chunks of a body as they arrive, read as one stream of bytes from
/// a blocking thread: the end of the body is the sender's end.
pub(crate) struct Chunks {
    chunks: tokio::sync::mpsc::Receiver<bytes::Bytes>,
    current: bytes::Bytes,
}

impl Chunks {
    pub(crate) fn new(chunks: tokio::sync::mpsc::Receiver<bytes::Bytes>) -> Chunks {
        Chunks {
            chunks,
            current: bytes::Bytes::new(),
        }
    }
}

impl std::io::Read for Chunks {
    fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        while self.current.is_empty() {
            match self.chunks.blocking_recv() {
                Some(chunk) => self.current = chunk,
                None => return Ok(0),
            }
        }
        let taken = buffer.len().min(self.current.len());
        buffer[..taken].copy_from_slice(&self.current[..taken]);
        bytes::Buf::advance(&mut self.current, taken);
        Ok(taken)
    }
}
