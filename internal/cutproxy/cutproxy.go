// Package cutproxy is a loopback TCP proxy for tests that break connections:
// it forwards every connection to an upstream address (which may be changed
// while it runs, to fail over to another server) and cuts connections — a
// given number of them once enough bytes came back from the upstream, or all
// open ones on demand — so that a client sees a connection die mid-stream,
// as it does when a network path or a server dies.
package cutproxy

import (
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
)

// Proxy forwards connections from its loopback address to an upstream.
type Proxy struct {
	ln net.Listener

	mu       sync.Mutex
	upstream string
	cutAfter int64 // bytes from the upstream after which a connection is cut
	toCut    int   // how many more connections to cut so
	conns    map[net.Conn]struct{}

	cuts atomic.Int64
	// held blocks forwarding from the upstream while Hold is in effect.
	held sync.RWMutex
}

// Start listens on 127.0.0.1 and forwards to upstream until the test ends.
func Start(t testing.TB, upstream string) *Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("cutproxy: %v", err)
	}
	p := &Proxy{ln: ln, upstream: upstream, conns: map[net.Conn]struct{}{}}
	go p.serve()
	t.Cleanup(func() {
		_ = ln.Close()
		p.CutAll()
	})
	return p
}

// Addr is the proxy's address (host:port).
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// SetUpstream sends the connections accepted from now on to addr.
func (p *Proxy) SetUpstream(addr string) {
	p.mu.Lock()
	p.upstream = addr
	p.mu.Unlock()
}

// CutAfter makes the proxy cut the next n connections each once bytes
// bytes came back from the upstream on it.
func (p *Proxy) CutAfter(bytes int64, n int) {
	p.mu.Lock()
	p.cutAfter, p.toCut = bytes, n
	p.mu.Unlock()
}

// CutAll closes every open connection (both sides).
func (p *Proxy) CutAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.conns {
		_ = c.Close()
	}
}

// Hold stops forwarding what the upstream sends (the client receives
// nothing more, the upstream's writes still succeed into the buffers) until
// Release: what it sent meanwhile is lost when the connections are cut.
func (p *Proxy) Hold() { p.held.Lock() }

// Release undoes Hold.
func (p *Proxy) Release() { p.held.Unlock() }

// Cuts is how many connections the proxy cut so far (CutAfter's).
func (p *Proxy) Cuts() int64 { return p.cuts.Load() }

func (p *Proxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		go p.forward(c)
	}
}

func (p *Proxy) forward(client net.Conn) {
	p.mu.Lock()
	upstream := p.upstream
	var limit int64 = -1
	if p.toCut > 0 {
		limit = p.cutAfter
		p.toCut--
	}
	p.mu.Unlock()
	server, err := net.Dial("tcp", upstream)
	if err != nil {
		_ = client.Close()
		return
	}
	p.mu.Lock()
	p.conns[client], p.conns[server] = struct{}{}, struct{}{}
	p.mu.Unlock()
	closeBoth := func() {
		_ = client.Close()
		_ = server.Close()
		p.mu.Lock()
		delete(p.conns, client)
		delete(p.conns, server)
		p.mu.Unlock()
	}
	go func() {
		_, _ = io.Copy(server, client)
		closeBoth()
	}()
	n, _ := p.copyDown(client, server, limit)
	if limit >= 0 && n == limit {
		p.cuts.Add(1)
	}
	closeBoth()
}

// copyDown copies from the upstream to the client, at most limit bytes
// (limit < 0: all), waiting while the proxy holds.
func (p *Proxy) copyDown(client, server net.Conn, limit int64) (int64, error) {
	buf := make([]byte, 32<<10)
	var n int64
	for limit < 0 || n < limit {
		want := int64(len(buf))
		if limit >= 0 {
			want = min(want, limit-n)
		}
		r, err := server.Read(buf[:want])
		if r > 0 {
			p.held.RLock()
			w, werr := client.Write(buf[:r])
			p.held.RUnlock()
			n += int64(w)
			if werr != nil {
				return n, werr
			}
		}
		if err != nil {
			return n, err
		}
	}
	return n, nil
}
