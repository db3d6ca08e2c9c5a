package bench

import "testing"

// TestMixedSpreadsItsWrites checks the counter that picks the writes: in
// any hundred consecutive requests of a client, wherever its counter
// starts, exactly the share asked for are writes, and at 50% no two
// writes come in a row.
func TestMixedSpreadsItsWrites(t *testing.T) {
	for _, writes := range MixedWrites {
		m := &mixed{writes: writes, of: 16}
		for range 16 {
			c := m.newClient()
			count, last := 0, false
			for i := range 100 {
				w := m.isWrite(c)
				if w {
					count++
				}
				if writes == 50 && i > 0 && w && last {
					t.Fatalf("writes=%d: two writes in a row at request %d", writes, c.n)
				}
				last = w
			}
			if count != writes {
				t.Errorf("writes=%d: client %s made %d writes in 100 requests", writes, c.id, count)
			}
		}
	}
}
