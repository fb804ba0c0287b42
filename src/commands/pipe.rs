//! Output that survives its reader going away (`PipeSafe`): a broken pipe drops the rest of the
//! output, and the run still ends with its decided exit status.

/// A writer that, once its reader has gone away (a broken pipe: `tracelint check … | head`),
/// drops the rest of the output instead of failing, so the run goes on to its decided exit
/// status: a gate must not pass because its reader stopped reading.
#[derive(Debug)]
pub struct PipeSafe<W> {
    inner: W,
    closed: bool,
}

impl<W: std::io::Write> PipeSafe<W> {
    /// Wrap `inner`.
    pub fn new(inner: W) -> Self {
        Self {
            inner,
            closed: false,
        }
    }
}

impl<W: std::io::Write> std::io::Write for PipeSafe<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.closed {
            return Ok(buf.len());
        }
        match self.inner.write(buf) {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(buf.len())
            }
            other => other,
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if self.closed {
            return Ok(());
        }
        match self.inner.flush() {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(())
            }
            other => other,
        }
    }
}
