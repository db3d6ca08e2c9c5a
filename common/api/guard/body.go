package guard

import "io"

// BodyCapacity is the buffer that a body announced as contentLength bytes
// (-1: not announced) is read into, under a limit of limit bytes, and what
// its reading reserves: one byte more than the body, so that its end is
// seen without growing the buffer, and for a body that may be too large,
// one more than the limit, so that http.MaxBytesReader can tell.
func BodyCapacity(contentLength, limit int64) int {
	if contentLength < 0 || contentLength > limit {
		return int(limit) + 1
	}
	return int(contentLength) + 1
}

// ReadBody reads the whole of body into a buffer of capacity bytes, which
// it grows only if the body is longer than it said: io.ReadAll would start
// small and double, leaving about the body's size again in garbage. What
// it read is returned with the error of a failed read.
func ReadBody(body io.Reader, capacity int) ([]byte, error) {
	buf := make([]byte, 0, capacity)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := body.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}
