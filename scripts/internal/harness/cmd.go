// Package harness is what the commands of scripts/ share: the root and the learner's local.work,
// flags, the recorded command line, clean-up on Ctrl-C, the go command, the result files' header
// and the interleaved rounds.
package harness

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Cmd is one command of scripts/ while it runs.
type Cmd struct {
	Name     string        // compare, check, ...: the prefix of its messages
	Flags    *flag.FlagSet // its options, as -name or --name, before or after its arguments
	Root     string        // the repository's root, the working folder from Parse on
	mu       sync.Mutex
	cleanups []func()
}

// New is the command scripts/name, whose --help prints its manual. It ends with Exit, so that clean-ups run.
func New(name string) *Cmd {
	c := &Cmd{Name: name, Flags: flag.NewFlagSet(name, flag.ContinueOnError)}
	c.Flags.SetOutput(io.Discard) // Parse says what was wrong, and --help prints the manual
	return c
}

// Parse reads the options of os.Args, before or after the arguments, which it returns (all that
// follow "--" too), moves to the root and points the go command at the learner's local.work if any.
func (c *Cmd) Parse() []string {
	args, verbatim := os.Args[1:], []string(nil)
	if i := slices.Index(args, "--"); i >= 0 {
		args, verbatim = args[:i], args[i+1:]
	}
	var rest []string
	for len(args) > 0 {
		err := c.Flags.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			c.printManual()
			os.Exit(0)
		} else if err != nil {
			c.Usage("%v (--help lists the options)", err)
		}
		if args = c.Flags.Args(); len(args) > 0 { // an argument, after which options may follow
			rest, args = append(rest, strings.TrimSuffix(args[0], "/")), args[1:]
		}
	}
	c.enterRoot()
	go c.exitOnSignal()
	return append(rest, verbatim...)
}

// printManual prints the command's package comment, its manual, as go doc ./scripts/NAME does.
func (c *Cmd) printManual() {
	c.enterRoot()
	f, err := parser.ParseFile(token.NewFileSet(), filepath.Join("scripts", c.Name, "main.go"), nil, parser.PackageClauseOnly|parser.ParseComments)
	c.Fatal(err)
	fmt.Print(f.Doc.Text())
}

// enterRoot moves to the folder of go.work: the commands' paths start there.
func (c *Cmd) enterRoot() {
	os.Unsetenv("GOWORK") // the go.work found from here, not one the shell names
	work, err := GoOutput("env", "GOWORK")
	if work = strings.TrimSpace(work); err == nil && work == "" {
		err = errors.New("no go.work in this folder or above: run it in the repository")
	}
	c.Fatal(err)
	c.Root = filepath.Dir(work)
	c.Fatal(os.Chdir(c.Root))
	local, err := os.Stat("local.work")
	if err != nil {
		return
	}
	os.Setenv("GOWORK", filepath.Join(c.Root, "local.work"))
	if shared, err := os.Stat("go.work"); err == nil && shared.ModTime().After(local.ModTime()) {
		fmt.Fprintf(os.Stderr, "%s: go.work changed after local.work, its copy with your stages (a git pull?): go run ./scripts/new-stage --list writes it again\n", c.Name)
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

// Cleanup has f run at Exit, Usage, Fatal or Ctrl-C, before those given earlier.
func (c *Cmd) Cleanup(f func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cleanups = append(c.cleanups, f)
}

// Exit runs the clean-ups and exits with code. It keeps the lock: a second caller, such as Ctrl-C
// during the clean-ups, waits until the process ends.
func (c *Cmd) Exit(code int) {
	c.mu.Lock()
	for _, f := range slices.Backward(c.cleanups) {
		f()
	}
	os.Exit(code)
}

// exitOnSignal cleans up on Ctrl-C or SIGTERM; the terminal stops the running child itself.
func (c *Cmd) exitOnSignal() {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	<-stop
	c.Exit(130)
}

// measuredEnv change what the stages do: the recorded line starts with those set.
var measuredEnv = []string{"USERPERF_PARALLEL_MIN", "USERPERF_MILLION"}

// Line is how the command was run, as a shell reads it back: what result files record, to make a figure again.
func (c *Cmd) Line() string {
	var words []string
	for _, v := range measuredEnv {
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

// Quote returns s as one word for a shell: as it is if plain, else in single quotes.
func Quote(s string) string {
	if s != "" && strings.Trim(s, plain) == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

const plain = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%"

// Go runs the go command with args, its output on the terminal.
func Go(args ...string) error { return GoWith(nil, args...) }

// GoWith is Go with env, a list of KEY=value, added to the environment.
func GoWith(env []string, args ...string) error {
	cmd := exec.Command("go", args...)
	cmd.Env, cmd.Stdout, cmd.Stderr = append(os.Environ(), env...), os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %w", strings.Join(slices.Concat(env, []string{"go"}, args), " "), err)
	}
	return nil
}

// GoOutput runs the go command with args and returns its output; an error holds its stderr.
func GoOutput(args ...string) (string, error) {
	out, err := exec.Command("go", args...).Output()
	if e, ok := err.(*exec.ExitError); ok {
		err = fmt.Errorf("go %s: %w\n%s", strings.Join(args, " "), err, e.Stderr)
	}
	return string(out), err
}

// RaceCompiler is, when the race detector's C compiler cannot compile C, an error that says how to get
// one. It compiles a line: a gcc without its assembler is on PATH, yet fails the build. macOS needs none.
func RaceCompiler() error {
	out, _ := GoOutput("env", "CC")
	cc := strings.Fields(cmp.Or(strings.TrimSpace(out), "gcc")) // a command and its arguments, else the default
	compile := exec.Command(cc[0], append(cc[1:], "-c", "-x", "c", "-o", os.DevNull, "-")...)
	if compile.Stdin = strings.NewReader("int x;\n"); runtime.GOOS == "darwin" || compile.Run() == nil {
		return nil
	}
	why, how := "is not on PATH", "install gcc with your system's package manager (apt install gcc, dnf install gcc, apk add gcc)"
	if _, err := exec.LookPath(cc[0]); err == nil {
		why = "cannot compile C"
	}
	if runtime.GOOS == "windows" {
		how = "install gcc, such as MSYS2's mingw-w64 (https://www.msys2.org), and put its bin folder on PATH"
	}
	return fmt.Errorf("the race detector needs a C compiler, and %s (go env CC) %s: %s", strings.Join(cc, " "), why, how)
}

// Progress runs work, printing every 15 seconds how long it has taken and status.
func Progress(status func() string, work func() error) error {
	start, done := time.Now(), make(chan error, 1)
	go func() { done <- work() }()
	tick := time.NewTicker(15 * time.Second)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			return err
		case <-tick.C:
			fmt.Printf("   ... %s, %s\n", Elapsed(start), status())
		}
	}
}

// Elapsed is the time since start, as 1m23s.
func Elapsed(start time.Time) string { return time.Since(start).Round(time.Second).String() }
