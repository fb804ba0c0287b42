//! Field and tool names split into words, remembered per thread: R3 and the effect readers
//! ask the same few names (`file_path`, `order_id`, `Read`) about every call of a trace, and
//! splitting one into freshly allocated words each time cost more than the questions asked of
//! them. Bounded for hostile input: a long name is split every time, and a table that fills up
//! is emptied.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

/// Longest name remembered (bytes).
const NAME_MAX: usize = 128;
/// Names remembered before the table is emptied.
const ENTRIES_MAX: usize = 4096;

/// One splitting function's remembered answers.
#[derive(Default)]
pub(crate) struct WordCache {
    map: RefCell<HashMap<Box<str>, Rc<[String]>, foldhash::fast::RandomState>>,
}

impl WordCache {
    /// `split(name)`, remembered.
    pub(crate) fn get(&self, name: &str, split: fn(&str) -> Vec<String>) -> Rc<[String]> {
        if name.len() > NAME_MAX {
            return split(name).into();
        }
        if let Some(words) = self.map.borrow().get(name) {
            return Rc::clone(words);
        }
        let words: Rc<[String]> = split(name).into();
        let mut map = self.map.borrow_mut();
        if map.len() >= ENTRIES_MAX {
            map.clear();
        }
        map.insert(name.into(), Rc::clone(&words));
        words
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(name: &str) -> Vec<String> {
        name.split('_').map(str::to_owned).collect()
    }

    #[test]
    fn remembers_and_answers_the_same_as_splitting() {
        let cache = WordCache::default();
        let first = cache.get("order_id", split);
        let again = cache.get("order_id", split);
        assert_eq!(&*first, ["order", "id"]);
        assert!(Rc::ptr_eq(&first, &again));
        let long = "a_".repeat(NAME_MAX);
        assert_eq!(cache.get(&long, split).len(), NAME_MAX + 1);
        assert_eq!(cache.map.borrow().len(), 1, "a long name is not remembered");
    }

    #[test]
    fn a_full_table_is_emptied_not_grown() {
        let cache = WordCache::default();
        for i in 0..ENTRIES_MAX + 10 {
            let name = format!("f_{i}");
            assert_eq!(&*cache.get(&name, split), ["f".to_owned(), i.to_string()]);
        }
        assert!(cache.map.borrow().len() <= ENTRIES_MAX);
        assert_eq!(cache.map.borrow().len(), 10);
    }
}
