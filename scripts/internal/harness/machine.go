package harness

import (
	"cmp"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/klauspost/cpuid/v2"

	"example.com/userperf/scripts/internal/provenance"
)

// Header is what a result was measured on and how, as "key: value" lines:
// every result file starts with it, and internal/results reads it back.
// The commit is followed by "(with uncommitted changes)" when the measured
// code differs from it.
func (c *Cmd) Header() string {
	commit, err := provenance.Commit(".")
	if err != nil {
		commit = "none"
	}
	return fmt.Sprintf("machine-cpu: %s\nmachine-cores: %d\nmachine-gomaxprocs: %d\nmachine-os: %s/%s\ngo-version: %s\ndate: %s\ncommit: %s\ncommand: %s\n",
		cmp.Or(strings.TrimSpace(cpuid.CPU.BrandName), "unknown"), runtime.NumCPU(), gomaxprocs(),
		runtime.GOOS, runtime.GOARCH, GoVersion(), time.Now().UTC().Format(time.RFC3339), commit, c.Line())
}

// gomaxprocs is what the benchmarks run with: $GOMAXPROCS, else the cores.
func gomaxprocs() int {
	if n, err := strconv.Atoi(os.Getenv("GOMAXPROCS")); err == nil && n > 0 {
		return n
	}
	return runtime.NumCPU()
}

// GoVersion is the version of the go command that builds the stages.
func GoVersion() string {
	out, err := exec.Command("go", "env", "GOVERSION").Output()
	if err != nil {
		return runtime.Version()
	}
	return strings.TrimSpace(string(out))
}

// MeasuredOn is a header in one line, for the last line of a command.
func MeasuredOn(config map[string]string) string {
	var parts []string
	for _, key := range []string{"machine-cpu", "machine-cores", "go-version", "date", "commit"} {
		if v := config[key]; v != "" {
			parts = append(parts, v)
		}
	}
	return strings.Join(parts, "; ")
}

// Elapsed is the time since start, as 1m23s.
func Elapsed(start time.Time) string {
	s := int(time.Since(start).Seconds())
	return fmt.Sprintf("%dm%02ds", s/60, s%60)
}
