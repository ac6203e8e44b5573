//! What the sidecar models teach the readers of commands, hooks and image names: the
//! programs, endpoints, hooks and images that belong to a sidecar. The shell reader,
//! the hook reader and the image reader know no sidecar; a model lists its words in a [`Vocabulary`], and a registry's
//! models together make the [`Lexicon`] the readers are given.

use super::shell::{HttpMethod, StopTarget};
use crate::time::Millis;

/// An image that ships without a shell although its name does not say so: a sidecar's
/// own, which its model names in its vocabulary.
#[derive(Debug)]
pub struct ShellLessImage {
    /// A mark of the image in its name (`example/proxy:`).
    pub mark: &'static str,
    /// Whether it still carries a `sleep` binary.
    pub has_sleep: bool,
    /// The tag suffixes of its variants that do have a shell (`-alpine`); none when no
    /// variant has one.
    pub shell_variants: &'static [&'static str],
}

/// The words of one sidecar.
#[derive(Debug)]
pub struct Vocabulary {
    /// The paths of its HTTP stop endpoints (`/quitquitquit`), so that a call to one is
    /// a stop call, and judged by this model (the longest path that ends a call's path
    /// decides whose it is).
    pub stop_paths: &'static [&'static str],
    /// Its commands that ask it to stop (`linkerd-await --shutdown`).
    pub stop_commands: &'static [StopCommand],
    /// The names of its processes a signal to it targets (`pilot-agent`).
    pub processes: &'static [&'static str],
    /// Its readiness endpoints an app may poll before it starts (`:15021/healthz/ready`).
    pub readiness: &'static [&'static str],
    /// Its commands an app runs to wait for it before the work.
    pub start_waits: &'static [StartWait],
    /// The hooks its injector adds, known by what they run.
    pub hooks: &'static [KnownHook],
    /// Its images that lack a shell although their names do not say so.
    pub shell_less_images: &'static [ShellLessImage],
}

impl Vocabulary {
    /// No words: a sidecar whose commands the readers need not know.
    pub const NONE: Vocabulary = Vocabulary {
        stop_paths: &[],
        stop_commands: &[],
        processes: &[],
        readiness: &[],
        start_waits: &[],
        hooks: &[],
        shell_less_images: &[],
    };
}

/// A sidecar's command that asks it to stop.
#[derive(Debug)]
pub struct StopCommand {
    /// The program's name (`linkerd-await`).
    pub program: &'static str,
    /// What the command addresses, from its words (the program first), when these
    /// words ask the sidecar to stop.
    pub read: fn(argv: &[&str]) -> Option<StopAsked>,
}

/// What a stop command addresses, and the HTTP method when it is an HTTP call.
pub type StopAsked = (StopTarget, Option<HttpMethod>);

/// How an app's command waits for a sidecar before the work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StartWait {
    /// It runs the work under this program (`linkerd-await -- /app`).
    Under(&'static str),
    /// It runs this program's `wait` first (`pilot-agent wait && /app`).
    First(&'static str),
}

/// A hook an injector adds, known by what it runs.
#[derive(Debug)]
pub enum KnownHook {
    /// A postStart that returns once its sidecar is ready (`pilot-agent wait`).
    WaitsUntilReady {
        /// The program.
        program: &'static str,
        /// An argument it has (`wait`), when the program needs one to wait.
        argument: Option<&'static str>,
        /// The flag that sets how long it waits (`--timeoutSeconds`).
        timeout_flag: &'static str,
        /// How long it waits without the flag.
        timeout: Millis,
        /// How often it polls.
        poll: Millis,
        /// The flag that sets how often, in milliseconds (`--periodMillis=`).
        poll_flag: Option<&'static str>,
    },
    /// A preStop that starts its sidecar's inbound drain and returns at once
    /// (`pilot-agent request POST drain`).
    StartsDrain {
        /// The program.
        program: &'static str,
        /// The argument that asks for the drain (`drain`, any case).
        argument: &'static str,
    },
    /// An HTTP preStop that answers once its sidecar has drained (Knative's
    /// `/wait-for-drain`).
    AwaitsDrain {
        /// The port called.
        port: i32,
        /// The path called.
        path: &'static str,
        /// The sidecar, as messages name it (`Knative's queue-proxy`).
        of: &'static str,
        /// The drain's quiet period: it ends once no request has come for this long.
        quiet: Millis,
    },
}

/// The vocabularies of a registry's models: everything the readers know.
#[derive(Debug, Default)]
pub struct Lexicon(Vec<&'static Vocabulary>);

impl Lexicon {
    /// The words of `vocabularies`, in the models' order.
    pub fn new(vocabularies: Vec<&'static Vocabulary>) -> Lexicon {
        Lexicon(vocabularies)
    }

    /// Every model's images that lack a shell although their names do not say so.
    pub fn shell_less_images(&self) -> impl Iterator<Item = &'static ShellLessImage> + '_ {
        self.0
            .iter()
            .flat_map(|words| words.shell_less_images.iter())
    }

    /// Every model's stop paths.
    pub fn stop_paths(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.0
            .iter()
            .flat_map(|words| words.stop_paths.iter().copied())
    }

    /// Every model's stop commands.
    pub fn stop_commands(&self) -> impl Iterator<Item = &'static StopCommand> + '_ {
        self.0.iter().flat_map(|words| words.stop_commands.iter())
    }

    /// Every model's process names.
    pub fn processes(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.0
            .iter()
            .flat_map(|words| words.processes.iter().copied())
    }

    /// Every model's readiness endpoints.
    pub fn readiness(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.0
            .iter()
            .flat_map(|words| words.readiness.iter().copied())
    }

    /// Every model's start waits.
    pub fn start_waits(&self) -> impl Iterator<Item = StartWait> + '_ {
        self.0
            .iter()
            .flat_map(|words| words.start_waits.iter().copied())
    }

    /// Every model's known hooks.
    pub fn hooks(&self) -> impl Iterator<Item = &'static KnownHook> + '_ {
        self.0.iter().flat_map(|words| words.hooks.iter())
    }
}
