// Package harness is what the commands of scripts/ share: the repository's
// root and the learner's local.work, flags and --help, the recorded command
// line, clean-up on Ctrl-C, the header of every result file and the
// interleaved benchmark rounds. It runs only the go command and git.
package harness

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
)

// Cmd is one command of scripts/ while it runs.
type Cmd struct {
	Name  string        // compare, check, ...: the prefix of its messages
	Flags *flag.FlagSet // its options, as -name or --name, before or after its arguments
	Root  string        // the repository's root, the working folder from Parse on

	usage    string
	env      []string // environment variables that the recorded command line names
	mu       sync.Mutex
	cleanups []func()
	exit     sync.Once
}

// New is the command name, whose --help prints usage. A command ends with
// Exit, even when it succeeds, so that its clean-ups run.
func New(name, usage string) *Cmd {
	c := &Cmd{Name: name, usage: usage, Flags: flag.NewFlagSet(name, flag.ContinueOnError)}
	c.Flags.SetOutput(io.Discard)
	c.Flags.Usage = func() {}
	return c
}

// Parse reads the options of os.Args, wherever they stand among the
// arguments, and returns the arguments; everything after "--" is an argument.
// Then it moves to the repository's root and points the go command at the
// learner's local.work if there is one (scripts/new-stage).
func (c *Cmd) Parse() []string {
	args, verbatim := os.Args[1:], []string(nil)
	for i, a := range args {
		if a == "--" {
			args, verbatim = args[:i], args[i+1:]
			break
		}
	}
	var rest []string
	for {
		err := c.Flags.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			fmt.Print(strings.TrimLeft(c.usage, "\n"))
			os.Exit(0)
		} else if err != nil {
			c.Usage("%v (--help lists the options)", err)
		}
		if args = c.Flags.Args(); len(args) == 0 {
			break
		}
		rest, args = append(rest, strings.TrimSuffix(args[0], "/")), args[1:]
	}
	c.enterRoot()
	go c.exitOnSignal()
	return append(rest, verbatim...)
}

// enterRoot moves to the folder of the go.work that the go command finds
// from here, at or above the working folder: the commands' paths are all
// relative to it.
func (c *Cmd) enterRoot() {
	find := exec.Command("go", "env", "GOWORK")
	find.Env = append(os.Environ(), "GOWORK=") // the search, not a GOWORK the shell set
	out, err := find.Output()
	work := strings.TrimSpace(string(out))
	if err == nil && work == "" {
		err = errors.New("no go.work in this folder or above: run it in the repository")
	}
	c.Fatal(err)
	c.Root = filepath.Dir(work)
	c.Fatal(os.Chdir(c.Root))
	if _, err := os.Stat("local.work"); err == nil {
		os.Setenv("GOWORK", filepath.Join(c.Root, "local.work"))
	} else {
		os.Unsetenv("GOWORK")
	}
}

// Usage reports a mistake in how the command was run, and exits 2.
func (c *Cmd) Usage(format string, args ...any) {
	fmt.Fprintf(os.Stderr, c.Name+": "+format+"\n", args...)
	c.Exit(2)
}

// Fatal reports err, unless it is nil, and exits 1.
func (c *Cmd) Fatal(err error) {
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", c.Name, err)
		c.Exit(1)
	}
}

// Cleanup has f run when the command exits through Exit, Usage, Fatal or
// Ctrl-C, after the functions given after it.
func (c *Cmd) Cleanup(f func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cleanups = append(c.cleanups, f)
}

// Exit runs the clean-ups and exits with code. Only the first caller does:
// a second one, such as Ctrl-C during a clean-up, waits in Do until the
// process ends.
func (c *Cmd) Exit(code int) {
	c.exit.Do(func() {
		c.mu.Lock()
		list := c.cleanups
		c.mu.Unlock()
		for i := len(list) - 1; i >= 0; i-- {
			list[i]()
		}
		os.Exit(code)
	})
}

// exitOnSignal cleans up on Ctrl-C or a termination signal. The terminal
// sends Ctrl-C to the running child too, which stops it.
func (c *Cmd) exitOnSignal() {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	<-stop
	c.Exit(130)
}

// Record names environment variables that change what the command
// measures: the recorded command line starts with those that are set.
func (c *Cmd) Record(env ...string) { c.env = append(c.env, env...) }

// Line is how the command was run, as a shell reads it back to the same
// words: what result files record, so that a figure can be made again.
func (c *Cmd) Line() string {
	var words []string
	for _, v := range c.env {
		if value := os.Getenv(v); value != "" {
			words = append(words, v+"="+Quote(value))
		}
	}
	words = append(words, "go", "run", "./scripts/"+c.Name)
	for _, a := range os.Args[1:] {
		words = append(words, Quote(a))
	}
	return strings.Join(words, " ")
}

// Quote returns s as one word for a shell: as it is when it is plain,
// else in single quotes.
func Quote(s string) string {
	plain := s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
	}) < 0
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
