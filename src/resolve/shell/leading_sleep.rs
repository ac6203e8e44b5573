//! How long a command sleeps before it does anything else (`sleep 20 && psql …`): its
//! first call out comes no sooner, whatever the call is (docs/lifecycle.md §2.8).

use super::hook_length::{Env, Sleep, is_noop, sleep_length};
use super::syntax::{Command, Connector, List};
use crate::time::Millis;

/// The sleeps `list` runs before its first other command, in the foreground and on
/// every path (`sleep 20 && psql`, `sleep 5; echo start; sleep 5; ./app`); nothing
/// after an `||`, a loop or a background item counts. Zero when it starts with
/// anything else.
pub fn leading_sleep(list: &List, env: &Env) -> Millis {
    let mut total = Millis::ZERO;
    for item in &list.0 {
        if item.background {
            return total;
        }
        let chain = std::iter::once((None, &item.first))
            .chain(item.rest.iter().map(|(connector, p)| (Some(*connector), p)));
        for (connector, pipeline) in chain {
            let [Command::Simple(command)] = pipeline.commands.as_slice() else {
                return total;
            };
            if connector == Some(Connector::Or) || pipeline.negated {
                return total;
            }
            match sleep_length(command, env) {
                Some(Sleep::For(length)) => total = total + length,
                Some(Sleep::Forever) => return total,
                None if is_noop(command) && command.name().is_some() => {}
                None => return total,
            }
        }
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resolve::shell::parse;

    fn slept(script: &str) -> Millis {
        leading_sleep(&parse(script), &Env::new())
    }

    #[test]
    fn sleeps_before_the_first_command() {
        assert_eq!(
            slept("sleep 20 && psql -h 127.0.0.1 -c 'select 1'"),
            Millis::secs(20)
        );
        assert_eq!(
            slept("sleep 5; echo start\nsleep 5s; ./app"),
            Millis::secs(10)
        );
        assert_eq!(slept("psql -c 'select 1'; sleep 20"), Millis::ZERO);
        assert_eq!(slept("./app & sleep 20"), Millis::ZERO);
        assert_eq!(slept("sleep 3 || ./app; sleep 9"), Millis::secs(3));
        assert_eq!(slept("sleep 2 | ./app"), Millis::ZERO);
    }
}
