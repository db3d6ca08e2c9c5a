package guard

// Limits are what all requests together may make a server hold; the
// limits on one request are constants of package api.
type Limits struct {
	MaxUsers int // users stored

	// MaxStoredBytes bounds what the stored users cost (see cost): a limit
	// on users alone lets one user of 32 roles weigh as much as 600.
	MaxStoredBytes int64

	// MaxInFlightBytes bounds the list answers being built or sent and the
	// POST bodies being read. A list takes its size before it is built, and
	// one larger than the limit takes all of it.
	MaxInFlightBytes int64

	// MaxClientBytes is how many of MaxInFlightBytes one client may hold
	// (SmallOverdraft aside); a larger reservation counts as all of it.
	MaxClientBytes int64

	// MaxConns bounds the connections open, each holding up to ConnBytes;
	// the next ones wait in the kernel's queue.
	MaxConns int

	// MaxClientConns is how many of MaxConns one client may hold.
	MaxClientConns int

	// ReserveConns is how many of MaxConns only a client that holds none
	// may take; 0 means ConnReserve's default. The workshop's room keeps
	// one for each participant.
	ReserveConns int
}

// ConnReserve is how many of MaxConns only a client that holds no
// connection may take: the last eighth, at least one, unless ReserveConns
// says otherwise.
func (l Limits) ConnReserve() int {
	if l.ReserveConns > 0 {
		return l.ReserveConns
	}
	return max(1, l.MaxConns/8)
}

// DefaultLimits are the limits of api.Main, unless its flags say
// otherwise, and of api.NewHandler. Users of the largest kind count 512 KB
// each, so some 500 of them fit.
var DefaultLimits = Limits{
	MaxUsers:         100_000, // ten times the default data set
	MaxStoredBytes:   256 << 20,
	MaxInFlightBytes: 128 << 20,
	MaxClientBytes:   128 << 20 / 4,
	MaxConns:         4096,
	MaxClientConns:   4096 / 4,
}

// ConnBytes is the most that one open connection holds while its request
// arrives, rounded up: its headers twice (read buffer and header map), the
// 4 KiB write buffer, and its goroutine's stack. A body counts in flight.
const ConnBytes = 64 << 10

// ProgramBytes is what a stage holds beside what the limits count: code,
// runtime, and the pointers and maps of its index.
const ProgramBytes = 64 << 20

// MemoryLimit is the garbage collector's soft limit: the stored users, the
// bytes in flight and the program. Without it the heap grows to twice what
// is live, and a stage that keeps every role's JSON would hold twice
// MaxStoredBytes.
func MemoryLimit(limits Limits) int64 {
	return limits.MaxStoredBytes + limits.MaxInFlightBytes + ProgramBytes
}

// PeakRSS is the most resident memory a stage reaches under limits:
// MemoryLimit, and one list more, as a new list is allocated before the
// collector frees the previous one.
func PeakRSS(limits Limits) int64 { return MemoryLimit(limits) + limits.MaxInFlightBytes }

// cost is what a user of encoded bytes of JSON holding roles roles counts
// against MaxStoredBytes: the JSON once for the user and once per role's
// list, the most any stage keeps (stage 6 and the floor), so that every
// stage refuses the same requests.
func cost(encoded, roles int) int64 { return int64(encoded)*int64(1+roles) + int64(roles)*RoleBytes }

// RoleBytes is what one role of a user makes a stage hold beside the JSON:
// its name, its pointer in the role's list and, for a rare role, its share
// of the role's map entry.
const RoleBytes = 128
