package results

import (
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// WallFile is the file that holds how long a command took, beside its results: in
// results/test for scripts/test, in a run's folder for compare.
const WallFile = "wall.txt"

// wallBench is the benchmark name under which a wall time is written, so that
// the file reads as any result file does, header included.
const wallBench = "Wall"

// WriteWall writes header and wall, how long the command took, to path, in benchmark format.
func WriteWall(path, header string, wall time.Duration) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, fmt.Appendf(nil, "%s\nBenchmark%s 1 %d ns/op\n", header, wallBench, wall.Nanoseconds()), 0o644)
}

// ReadWall reads what WriteWall wrote: the wall time, and the file, whose header says by which command.
func ReadWall(path string) (time.Duration, *File, error) {
	f, err := Read(path)
	if err != nil {
		return 0, nil, err
	}
	v := f.Values(wallBench, "sec/op")
	if len(v) != 1 {
		return 0, nil, fmt.Errorf("%s: want one wall time, found %d", path, len(v))
	}
	return time.Duration(v[0] * float64(time.Second)), f, nil
}
