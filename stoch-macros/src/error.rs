//! Error helpers in the style of pin-project-internal: `format_err!` builds a spanned
//! [`syn::Error`], `bail!` returns it, and [`Errors`] collects several so that the user sees every
//! problem of one item at once (serde's `Ctxt`).

/// `format_err!(tokens, "message {}", arg)`: a [`syn::Error`] spanned on `tokens`.
macro_rules! format_err {
    ($span:expr, $msg:expr $(,)?) => {
        ::syn::Error::new_spanned(&$span, $msg)
    };
    ($span:expr, $($tt:tt)*) => {
        $crate::error::format_err!($span, format!($($tt)*))
    };
}

/// `bail!(tokens, "message {}", arg)`: return `Err(format_err!(..))`.
macro_rules! bail {
    ($($tt:tt)*) => {
        return Err($crate::error::format_err!($($tt)*))
    };
}

pub(crate) use {bail, format_err};

/// Errors collected while validating and rewriting one item.
#[derive(Default)]
pub(crate) struct Errors {
    inner: Option<syn::Error>,
}

impl Errors {
    /// Adds one error.
    pub(crate) fn push(&mut self, err: syn::Error) {
        match &mut self.inner {
            Some(all) => all.combine(err),
            None => self.inner = Some(err),
        }
    }

    /// The combined error, if any was pushed.
    pub(crate) fn into_result(self) -> syn::Result<()> {
        match self.inner {
            Some(err) => Err(err),
            None => Ok(()),
        }
    }
}
