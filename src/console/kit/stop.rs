//! A flag that stops a task between requests: the console sets it (Esc on
//! Health, another project chosen), the task reads it.

/// The flag that stops a look between requests: the screen sets it, the
/// look's task reads it.
#[derive(Debug, Clone, Default)]
pub struct Stop(pub std::sync::Arc<std::sync::atomic::AtomicBool>);

impl Stop {
    pub fn stop(&self) {
        self.0.store(true, std::sync::atomic::Ordering::Relaxed);
    }

    pub fn is_stopped(&self) -> bool {
        self.0.load(std::sync::atomic::Ordering::Relaxed)
    }
}

impl PartialEq for Stop {
    /// The same flag.
    fn eq(&self, other: &Stop) -> bool {
        std::sync::Arc::ptr_eq(&self.0, &other.0)
    }
}
