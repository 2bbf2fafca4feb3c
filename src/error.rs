//! The error value (docs/abi.md "Errors"): a code, a sentence, and where in which file.

use serde::Serialize;
use std::fmt;

/// The error codes of docs/abi.md "Errors". The first three come from creating (or reloading) an engine;
/// the others appear in an outcome's `error` when a fire's input could not be processed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    InvalidOptions,
    InvalidConfig,
    IoError,
    InvalidEnvelope,
    UnknownEvent,
    NullArgument,
    InvalidUtf8,
    Internal,
    /// An asynchronous fire stopped by `oh_hooks_cancel` (1.1).
    Cancelled,
}

impl ErrorCode {
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidOptions => "invalid_options",
            ErrorCode::InvalidConfig => "invalid_config",
            ErrorCode::IoError => "io_error",
            ErrorCode::InvalidEnvelope => "invalid_envelope",
            ErrorCode::UnknownEvent => "unknown_event",
            ErrorCode::NullArgument => "null_argument",
            ErrorCode::InvalidUtf8 => "invalid_utf8",
            ErrorCode::Internal => "internal",
            ErrorCode::Cancelled => "cancelled",
        }
    }
}

/// `{"code", "message"}` plus `file`, `line` and `path` where they apply.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Error {
    pub code: ErrorCode,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
}

impl Error {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Error {
        Error { code, message: message.into(), file: None, line: None, path: None }
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self)
            .unwrap_or_else(|_| r#"{"code":"internal","message":"could not serialize an error"}"#.to_string())
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code.as_str(), self.message)
    }
}

impl std::error::Error for Error {}

pub type Result<T> = std::result::Result<T, Error>;
