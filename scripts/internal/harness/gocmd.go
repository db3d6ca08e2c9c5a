package harness

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// Go runs the go command with args, its output on the terminal.
func Go(args ...string) error {
	cmd := exec.Command("go", args...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go %s: %v", strings.Join(args, " "), err)
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
