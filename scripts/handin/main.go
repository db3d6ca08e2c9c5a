// Command handin puts a participant's workshop results in one file; the
// usage below says how.
package main

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"example.com/userperf/scripts/internal/harness"
	"example.com/userperf/scripts/internal/results"
	"example.com/userperf/scripts/internal/stages"
)

const usage = `
handin: your workshop results in one file, to hand to the instructor.

  go run ./scripts/handin "Ada Lovelace"

For each stage you made with new-stage, it takes the verdict and the speed of your last check of it,
checking it again first if you changed it since. The speed is ListByRole against the stage you
started from and the exercise's reference, measured on this machine: the room compares ratios, never
one machine's times with another's. It writes results/handin/<name>.txt: your name, the machine,
each stage's verdict and results, each under the stage measured. Send that file to the instructor as
the room agreed; the instructor runs go run ./scripts/room on everyone's files.
`

var validName = regexp.MustCompile(`^[[:alnum:]][[:alnum:] ._-]{0,39}$`)

func main() {
	c := harness.New("handin", usage)
	args := c.Parse()
	if len(args) != 1 || !validName.MatchString(args[0]) {
		c.Usage(`give your name, as the room should see it: go run ./scripts/handin "Ada Lovelace" (up to 40 letters, digits, spaces, dots, dashes)`)
	}
	who, mine := args[0], stages.Mine(".")
	if len(mine) == 0 {
		c.Usage("no stage made with go run ./scripts/new-stage here: nothing to hand in")
	}
	for _, s := range mine {
		if changedSince(s, filepath.Join("results", "check", s, "verdict.txt")) {
			fmt.Printf("== %s: not checked since it last changed: go run ./scripts/check %s\n", s, s)
			check := exec.Command("go", "run", "./scripts/check", s)
			check.Stdout, check.Stderr = os.Stdout, os.Stderr
			check.Run() // a failed check is handed in as failed
		}
	}

	var file, verdicts strings.Builder
	fmt.Fprintf(&file, "participant: %s\n%s", who, c.Header())
	for _, s := range mine {
		verdict, _ := os.ReadFile(filepath.Join("results", "check", s, "verdict.txt"))
		fmt.Fprintf(&file, "verdict-%s: %s\n", s, strings.TrimSpace(string(verdict)))
		fmt.Fprintf(&verdicts, "  %s: %s\n", s, strings.TrimSpace(string(verdict)))
	}
	for _, s := range mine {
		speeds, _ := filepath.Glob(filepath.Join("results", "check", s, "speed-*.txt")) // none after a failed check
		for _, f := range speeds {
			measured, err := results.Read(f)
			c.Fatal(err)
			role := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "speed-"), ".txt")
			fmt.Fprintf(&file, "exercise: %s\nrole: %s\nstage: %s\n", s, role, path.Base(measured.Config["pkg"]))
			data, _ := os.ReadFile(f)
			for _, line := range strings.SplitAfter(string(data), "\n") {
				if strings.HasPrefix(line, "Benchmark") {
					file.WriteString(line)
				}
			}
		}
	}
	out := filepath.Join("results", "handin", strings.ReplaceAll(strings.ToLower(who), " ", "-")+".txt")
	c.Fatal(os.MkdirAll(filepath.Dir(out), 0o755))
	c.Fatal(os.WriteFile(out, []byte(file.String()), 0o644))
	fmt.Printf("\n%swrote %s: send this one file to the instructor\n", verdicts.String(), out)
}

// changedSince reports whether a file of folder dir is newer than file, or
// there is no file.
func changedSince(dir, file string) bool {
	kept, err := os.Stat(file)
	changed := err != nil
	if !changed {
		filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if info, err := d.Info(); err == nil && info.ModTime().After(kept.ModTime()) {
				changed = true
				return fs.SkipAll
			}
			return nil
		})
	}
	return changed
}
