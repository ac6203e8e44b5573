# Prints, one per line, the matches zsh's completion system offers for a command
# line, as if Tab were pressed at its end.
#
#   zsh -f tests/shells/zsh-complete.zsh COMPLETIONS_DIR 'kubectl-mesh_lifecycle li'
#
# Completion only runs inside the line editor, so this starts an interactive zsh on a
# pseudo-terminal (zsh/zpty), loads the completion system with COMPLETIONS_DIR on
# $fpath, wraps `compadd` to print each match it adds, and types the line and a Tab.
# The shell exits as soon as completion ends. A tall terminal and LISTMAX keep a long
# list from being paged or asked about.
zmodload zsh/zpty || exit 3
local dir=$1 line=$2
zpty capture zsh -f -i
zpty -w capture 'stty rows 1000 columns 200; PS1= PS2= RPS1=; LISTMAX=100000; unsetopt beep; setopt interactive_comments'
zpty -w capture "fpath=(${(q)dir} \$fpath); autoload -Uz compinit; compinit -u -D"
zpty -w capture 'bindkey "^I" complete-word'
zpty -w capture 'zstyle ":completion:*" list-prompt ""; zstyle ":completion:*" menu no'
zpty -w capture 'compadd() {
  # Calls that only compute (-O, -A, -D before the matches) add nothing.
  if (( ${${@[1,(i)(-|--)]}[(I)-[OAD]*]} )); then builtin compadd "$@"; return; fi
  local -a found
  builtin compadd -A found "$@"
  local match
  for match in $found; do print -r -- "match: $match"; done
  builtin compadd "$@"
}'
zpty -w capture 'comppostfuncs=(exit)'
zpty -w capture 'print -r -- ready'
zpty -n -w capture "$line"$'\t'
local out started=
while zpty -r capture out; do
  out=${${out//$'\r'/}%$'\n'}
  [[ -n $DEBUG ]] && print -r -- "raw: ${(q+)out}"
  # Only what follows `ready` is completion output, and a match may follow the
  # terminal's control sequences on its line.
  if [[ -z $started ]]; then
    [[ $out == ready ]] && started=1
  elif [[ $out == *match:\ * ]]; then
    print -r -- ${out#*match: }
  fi
done
return 0
