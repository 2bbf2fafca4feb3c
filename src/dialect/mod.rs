//! Dialects: the hook files, events, stdin, answers and merge of each harness whose hooks
//! oh-hooks runs unchanged (README "Dialects").

pub mod cursor;
