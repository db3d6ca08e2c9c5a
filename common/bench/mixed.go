package bench

import (
	"bytes"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"example.com/userperf/common/api"
	"example.com/userperf/common/apitest/plain"
	"example.com/userperf/common/user"
)

// MixedWrites are the shares of writes, in percent, that Mixed measures,
// and MixedClients the clients at once; scripts/report reads both.
var (
	MixedWrites  = []int{0, 1, 10, 50}
	MixedClients = []int{1, 16}
)

// Mixed measures requests of which a share are writes, at the default data
// set, per request. A read is ListByRole of the admins, with Recycle; a
// write adds the client's own user, holding the three most held roles, or
// deletes it, so the data set keeps its size. A counter per client spreads
// the writes evenly, the same in every run. With 16 clients, read-wait-ns/op
// is the mean time one read took: what a reader pays for the writes.
func Mixed(b *testing.B, newStage api.NewStage) {
	users := Users(user.DefaultCount)
	want := plain.New(users).ListBody(user.RoleAdmin)
	roles := mostHeldRoles(users, 3)
	for _, writes := range MixedWrites {
		for _, clients := range MixedClients {
			name := fmt.Sprintf("users=%d/writes=%d/clients=%d", len(users), writes, clients)
			b.Run(name, func(b *testing.B) {
				m := &mixed{stage: newStage(Users(len(users))), roles: roles, wantLen: len(want), writes: writes, of: clients}
				m.base = users[len(users)/2].ID + "-mixed-" // sorts right after the middle user
				if got := m.stage.ListByRole(user.RoleAdmin); !bytes.Equal(got, want) {
					b.Fatal("ListByRole(admin) differs from encoding/json.Marshal")
				}
				b.ReportAllocs()
				if clients == 1 {
					m.oneClient(b)
				} else {
					m.manyClients(b, clients)
				}
				if got := m.stage.ListByRole(user.RoleAdmin); !bytes.Equal(got, want) {
					b.Error("after the writes, ListByRole(admin) differs from encoding/json.Marshal")
				}
			})
		}
	}
}

// mixed is one stage under the mix.
type mixed struct {
	stage   api.Stage
	roles   []string
	base    string       // the written users' ids are base and the client's number
	wantLen int          // the admins' body length, checked on every read
	writes  int          // percent
	of      int          // the number of clients
	clients atomic.Int64 // the clients so far
}

// client is one client's user and count of requests.
type client struct {
	id    string
	added bool
	n     int
}

// newClient returns the next client, whose counter starts its share of a
// hundred requests after the previous one's, so that they do not all write
// at once.
func (m *mixed) newClient() *client {
	k := int(m.clients.Add(1))
	return &client{id: m.base + strconv.Itoa(k), n: (k - 1) * 100 / m.of}
}

// isWrite reports whether c's next request is a write: the n-th is one
// when n*writes/100 steps up (every tenth request at 10%).
func (m *mixed) isWrite(c *client) bool {
	c.n++
	return c.n*m.writes/100 != (c.n-1)*m.writes/100
}

// write adds c's user if it is not stored, else deletes it.
func (m *mixed) write(c *client) error {
	if c.added {
		if !m.stage.Delete(c.id) {
			return fmt.Errorf("Delete(%s) found no user", c.id)
		}
	} else {
		// The stage owns what Add receives: a new Roles slice every time.
		u := user.User{ID: c.id, Name: "Mixed User", Email: "mixed@example.com", Roles: slices.Clone(m.roles)}
		if !m.stage.Add(u) {
			return fmt.Errorf("Add(%s) refused", c.id)
		}
	}
	c.added = !c.added
	return nil
}

// read lists the admins and checks the body's length: comparing it whole
// would cost as much as a fast stage's read.
func (m *mixed) read() error {
	body := m.stage.ListByRole(user.RoleAdmin)
	n := len(body)
	api.Recycle(m.stage, body)
	if n != m.wantLen {
		return fmt.Errorf("ListByRole(admin) gave %d bytes, want %d", n, m.wantLen)
	}
	return nil
}

func (m *mixed) oneClient(b *testing.B) {
	c := m.newClient()
	stop := CPUTime(b)
	for b.Loop() {
		var err error
		if m.isWrite(c) {
			err = m.write(c)
		} else {
			err = m.read()
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	stop()
}

func (m *mixed) manyClients(b *testing.B, clients int) {
	procs := runtime.GOMAXPROCS(0)
	b.SetParallelism((clients + procs - 1) / procs)
	var reads, readNanos atomic.Int64
	b.ResetTimer()
	stop := CPUTime(b)
	b.RunParallel(func(pb *testing.PB) {
		c := m.newClient()
		var n, nanos int64
		for pb.Next() {
			if m.isWrite(c) {
				if err := m.write(c); err != nil {
					b.Error(err)
					return
				}
				continue
			}
			start := time.Now()
			err := m.read()
			nanos += time.Since(start).Nanoseconds()
			n++
			if err != nil {
				b.Error(err)
				return
			}
		}
		reads.Add(n)
		readNanos.Add(nanos)
	})
	stop()
	if n := reads.Load(); n > 0 {
		b.ReportMetric(float64(readNanos.Load())/float64(n), "read-wait-ns/op")
	}
}
