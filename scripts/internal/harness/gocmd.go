package harness

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"time"
)

// Go runs the go command with args, its output on the terminal.
func Go(args ...string) error { return GoWith(nil, args...) }

// GoWith runs the go command with args and env, a list of KEY=value, its
// output on the terminal.
func GoWith(env []string, args ...string) error {
	cmd := exec.Command("go", args...)
	cmd.Env, cmd.Stdout, cmd.Stderr = append(os.Environ(), env...), os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %v", strings.Join(slices.Concat(env, []string{"go"}, args), " "), err)
	}
	return nil
}

// GoOutput runs the go command with args and returns what it printed; an
// error holds what it said on its standard error.
func GoOutput(args ...string) (string, error) {
	out, err := exec.Command("go", args...).Output()
	if e, ok := err.(*exec.ExitError); ok {
		err = fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, e.Stderr)
	}
	return string(out), err
}

// Benchstat runs benchstat, the tool of scripts/go.mod, with args.
func Benchstat(args ...string) (string, error) {
	return GoOutput(append([]string{"tool", "benchstat"}, args...)...)
}

// RaceCompiler is, when the C compiler that the race detector needs is not
// on PATH, an error that says so and how to get one, in one line. macOS
// needs none: its race detector has not used cgo since Go 1.20.
func RaceCompiler() error {
	out, _ := GoOutput("env", "CC")
	cc := strings.Join(append(strings.Fields(out), "gcc")[:1], "") // its first word, else the default
	if _, err := exec.LookPath(cc); err == nil || runtime.GOOS == "darwin" {
		return nil
	}
	how := "install gcc with your system's package manager (apt install gcc, dnf install gcc, apk add gcc)"
	if runtime.GOOS == "windows" {
		how = "install gcc, such as MSYS2's mingw-w64 (https://www.msys2.org), and put its bin folder on PATH"
	}
	return fmt.Errorf("the race detector needs a C compiler, and %s (go env CC) is not on PATH: %s", cc, how)
}

// Progress runs work and, every 15 seconds until it returns, prints how
// long it has taken and what status says: a long phase is never silent.
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
func Elapsed(start time.Time) string {
	s := int(time.Since(start).Seconds())
	return fmt.Sprintf("%dm%02ds", s/60, s%60)
}
