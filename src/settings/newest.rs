//! Values built from the settings on first use and shared by every pod of the run: the
//! settings as a mesh's newest release reads them ([`super::Settings::with_newest_release`]).

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};

/// Values built on first use, by key (a mesh's id).
pub struct BuiltOnce<T>(Mutex<BTreeMap<&'static str, Option<Arc<T>>>>);

impl<T> BuiltOnce<T> {
    /// The value for `key`, built by `build` the first time it is asked for.
    pub fn get_or_build(
        &self,
        key: &'static str,
        build: impl FnOnce() -> Option<T>,
    ) -> Option<Arc<T>> {
        let mut built = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        built
            .entry(key)
            .or_insert_with(|| build().map(Arc::new))
            .clone()
    }
}

impl<T> Default for BuiltOnce<T> {
    fn default() -> Self {
        BuiltOnce(Mutex::new(BTreeMap::new()))
    }
}

/// A clone starts empty: settings are cloned to be changed, and what was built from
/// the original would not follow.
impl<T> Clone for BuiltOnce<T> {
    fn clone(&self) -> Self {
        BuiltOnce::default()
    }
}

impl<T> fmt::Debug for BuiltOnce<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("BuiltOnce")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_is_built_once_and_a_clone_builds_its_own() {
        let values: BuiltOnce<u32> = BuiltOnce::default();
        let first = values.get_or_build("a", || Some(1)).unwrap();
        let again = values.get_or_build("a", || Some(2)).unwrap();
        assert!(Arc::ptr_eq(&first, &again), "built once");
        assert_eq!(values.get_or_build("b", || None), None);
        let clone = values.clone();
        assert_eq!(clone.get_or_build("a", || Some(3)).as_deref(), Some(&3));
    }
}
