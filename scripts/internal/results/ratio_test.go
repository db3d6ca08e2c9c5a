package results

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// resultFile writes stage.txt, a result file with one line of name per time in ns/op.
func resultFile(t *testing.T, stage, name string, ns ...int) string {
	var text strings.Builder
	for _, n := range ns {
		fmt.Fprintf(&text, "Benchmark%s-2 \t 1000 \t %d ns/op\nBenchmarkOther-2 \t 1000 \t 1 ns/op\n", name, n)
	}
	file := filepath.Join(t.TempDir(), stage+".txt")
	if err := os.WriteFile(file, []byte(text.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

func TestRatio(t *testing.T) {
	row := "ListByRole/users=10000/matches=100"
	slow := resultFile(t, "slow", row, 300, 301, 299, 302, 298, 300)
	fast := resultFile(t, "fast", row, 100, 101, 99, 100, 102, 98)
	noisy := resultFile(t, "noisy", row, 90, 400, 95, 290, 110, 300)
	near := resultFile(t, "near", row, 102, 99, 101, 103, 98, 100)
	close := resultFile(t, "close", row, 103, 104, 104, 105, 104, 104)
	far := resultFile(t, "far", row, 1, 4, 1, 3, 1, 3)
	for _, c := range []struct {
		old, new, want string
	}{
		{slow, fast, "3.0x faster than slow"},
		{fast, slow, "3.0x slower than fast"},
		// Medians 100 and 200, but the runs overlap, and the noisy one's interval
		// reaches from 90 to 400: a busy machine, said so.
		{fast, noisy, "2.0x slower than fast (too noisy to tell: ±100%; close other programs, then run again)"},
		// A tie reads as one, not as "1.0x slower".
		{fast, near, "as fast as fast (within the noise)"},
		// Apart for benchstat, but under 5%: two decimals, not "1.0x".
		{fast, close, "1.04x slower than fast"},
		// As wide, but a hundred times apart: the difference stands.
		{fast, far, "50.0x faster than fast"},
	} {
		if got, err := Ratio(row, c.old, c.new); err != nil || got != c.want {
			t.Errorf("Ratio = %q, %v; want %q", got, err, c.want)
		}
	}
	if _, err := Ratio("NoSuch", slow, fast); err == nil {
		t.Error("a benchmark that is not there: no error")
	}
}
