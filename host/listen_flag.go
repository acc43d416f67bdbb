package host

import (
	"fmt"
	"maps"
	"net"
	"slices"
	"strings"
)

// listenFlag is the -listen flag: listen-address replacements, FROM → TO.
type listenFlag map[string]string

func (l listenFlag) String() string {
	var parts []string
	for _, from := range slices.Sorted(maps.Keys(l)) {
		parts = append(parts, from+"="+l[from])
	}
	return strings.Join(parts, ",")
}

func (l listenFlag) Set(v string) error {
	from, to, ok := strings.Cut(v, "=")
	if !ok || from == "" || to == "" {
		return fmt.Errorf("%q is not FROM=TO (for example 127.0.0.1:8080=0.0.0.0:8080)", v)
	}
	if _, dup := l[from]; dup {
		return fmt.Errorf("%s is replaced twice", from)
	}
	l[from] = to
	return nil
}

// envItems splits the value of A2A_LISTEN at commas.
func (l listenFlag) envItems(v string) []string {
	var out []string
	for _, item := range strings.Split(v, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// check reports a FROM that is the address of no binding.
func (l listenFlag) check(bindings []Binding) error {
	have := map[string]bool{}
	var addrs []string
	for _, b := range bindings {
		if !have[b.Address] {
			have[b.Address] = true
			addrs = append(addrs, b.Address)
		}
	}
	for _, from := range slices.Sorted(maps.Keys(l)) {
		if !have[from] {
			return fmt.Errorf("no binding listens on %s; the agent's addresses are %s", from, strings.Join(addrs, ", "))
		}
	}
	return nil
}

// wrap returns a Config.Listen that opens TO where the agent asks for FROM.
// The bindings keep their agent.yaml addresses, so each of them still gets
// the listener of its own address: two FROMs moved to port 0 get two ports,
// and a FROM moved onto another binding's address fails to listen instead of
// joining that binding's listener.
func (l listenFlag) wrap(listen func(network, address string) (net.Listener, error)) func(network, address string) (net.Listener, error) {
	if len(l) == 0 {
		return listen
	}
	if listen == nil {
		listen = net.Listen
	}
	return func(network, address string) (net.Listener, error) {
		if to, ok := l[address]; ok {
			address = to
		}
		return listen(network, address)
	}
}
