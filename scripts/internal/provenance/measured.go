package provenance

import (
	"bytes"
	"fmt"
	"os/exec"
	"strings"

	"example.com/userperf/scripts/internal/stages"
)

// harness is the code that measures, besides the stages and common: the
// scripts that run benchmarks, load tests and profiles, hand-run ones
// included, the Go code they run, and the peers module's benchmark. The report, the tests and the
// workshop's scripts only present or check; changing them does not change
// what was measured.
var harness = []string{
	":(glob)scripts/*.sh",
	":(exclude)scripts/report.sh",
	":(exclude)scripts/test.sh",
	":(exclude)scripts/new-stage.sh",
	":(exclude)scripts/check.sh",
	":(glob)scripts/cmd/load/**",
	":(glob)scripts/internal/**",
	":(glob)peers/**", // the encoder benchmark against other JSON libraries
}

// notMeasured are files inside measured folders that no figure depends
// on: prose, pictures, and the harness's own tests.
var notMeasured = []string{
	":(exclude,glob)**/*.md",
	":(exclude,glob)**/*.svg",
	":(exclude,glob)scripts/**/*_test.go",
}

// measuredCode returns the git pathspecs of the code that the figures
// measure: the Go files, go.mod and go.sum of every stage folder, all of
// common, and the harness.
func measuredCode(root string) ([]string, error) {
	list, err := stages.Shown(root)
	if err != nil {
		return nil, err
	}
	specs := []string{":(glob)common/**"}
	for _, s := range list {
		specs = append(specs, ":(glob)"+s.Dir+"/**/*.go", ":(glob)"+s.Dir+"/go.mod", ":(glob)"+s.Dir+"/go.sum")
	}
	specs = append(specs, harness...)
	return append(specs, notMeasured...), nil
}

// Commit is what a measurement made now records: the short hash of HEAD,
// followed by Uncommitted if the measured code differs from it.
func Commit(root string) (string, error) {
	head, err := git(root, "rev-parse", "--short", "HEAD")
	if err != nil {
		return "", err
	}
	changed, err := uncommitted(root)
	if err != nil {
		return "", err
	}
	if len(changed) > 0 {
		return head + " " + Uncommitted, nil
	}
	return head, nil
}

// uncommitted lists the measured files that differ from HEAD, new files
// included.
func uncommitted(root string) ([]string, error) {
	specs, err := measuredCode(root)
	if err != nil {
		return nil, err
	}
	// No optional locks: others may be running git in this tree.
	out, err := git(root, append([]string{"--no-optional-locks", "status", "--porcelain", "--untracked-files=all", "--"}, specs...)...)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, line := range lines(out) {
		name := line[min(3, len(line)):] // after the two status letters
		if _, renamed, ok := strings.Cut(name, " -> "); ok {
			name = renamed
		}
		files = append(files, name)
	}
	return files, nil
}

// changedSince lists the measured files that differ between commit and HEAD.
func changedSince(root, commit string) ([]string, error) {
	specs, err := measuredCode(root)
	if err != nil {
		return nil, err
	}
	out, err := git(root, append([]string{"diff", "--name-only", commit, "HEAD", "--"}, specs...)...)
	return lines(out), err
}

// git runs git in root and returns its output without the final newline.
func git(root string, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-C", root}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimRight(string(out), "\n"), nil
}

// lines splits text into its lines; empty text has none.
func lines(text string) []string {
	if text == "" {
		return nil
	}
	return strings.Split(text, "\n")
}
