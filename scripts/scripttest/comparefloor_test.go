package scripttest

import (
	"strings"
	"testing"
)

// Named beside a stage, the floor has its column in the table: step 0 asks what its row says.
func TestCompareShowsTheFloorWhenNamed(t *testing.T) {
	root := workspace(t, "common", "stage0-linear", "floor")
	code, out := compare(t, root, "--bench", "^BenchmarkListByRole$/^users=1000$", "stage0-linear", "floor")
	header := ""
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "│") {
			header = l
			break
		}
	}
	if code != 0 || !strings.Contains(header, "stage0-linear") || !strings.Contains(header, "floor") {
		t.Errorf("compare stage0-linear floor: exit %d, the table's first line %q\n%s", code, header, out)
	}
}
