package store

import "math/rand/v2"

// listIndex keeps the tasks of one owner of one tenant in listing order
// (Cursor.Compare) so that ListTasks walks a page from its cursor instead
// of scanning and sorting the tenant: a treap with subtree sizes, O(log n)
// per insert, delete, seek and rank. Guarded by Memory.mu.
type listIndex struct {
	root *listNode
}

type listNode struct {
	key         Cursor
	e           *memEntry
	prio        uint64
	size        int
	left, right *listNode
}

func (n *listNode) count() int {
	if n == nil {
		return 0
	}
	return n.size
}

func (n *listNode) fix() { n.size = 1 + n.left.count() + n.right.count() }

// split divides n into the keys before k and the keys at or after k.
func split(n *listNode, k Cursor) (*listNode, *listNode) {
	if n == nil {
		return nil, nil
	}
	if n.key.Compare(k) < 0 {
		l, r := split(n.right, k)
		n.right = l
		n.fix()
		return n, r
	}
	l, r := split(n.left, k)
	n.left = r
	n.fix()
	return l, n
}

func merge(a, b *listNode) *listNode {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	case a.prio > b.prio:
		a.right = merge(a.right, b)
		a.fix()
		return a
	default:
		b.left = merge(a, b.left)
		b.fix()
		return b
	}
}

func (x *listIndex) len() int { return x.root.count() }

// insert adds e under key k (keys are unique: the task id is part of it).
func (x *listIndex) insert(k Cursor, e *memEntry) {
	l, r := split(x.root, k)
	x.root = merge(merge(l, &listNode{key: k, e: e, prio: rand.Uint64(), size: 1}), r)
}

// remove deletes the node under key k, if any.
func (x *listIndex) remove(k Cursor) {
	l, r := split(x.root, k)
	_, r = splitAfter(r, k)
	x.root = merge(l, r)
}

// splitAfter divides n into the keys at or before k and those after k.
func splitAfter(n *listNode, k Cursor) (*listNode, *listNode) {
	if n == nil {
		return nil, nil
	}
	if n.key.Compare(k) <= 0 {
		l, r := splitAfter(n.right, k)
		n.right = l
		n.fix()
		return n, r
	}
	l, r := splitAfter(n.left, k)
	n.left = r
	n.fix()
	return l, n
}

// before counts the keys that come before k.
func (x *listIndex) before(k Cursor) int {
	c := 0
	for n := x.root; n != nil; {
		if n.key.Compare(k) < 0 {
			c += n.left.count() + 1
			n = n.right
		} else {
			n = n.left
		}
	}
	return c
}

// walk calls f on the entries after key after (all of them when after is
// nil), in listing order, until f returns false.
func (x *listIndex) walk(after *Cursor, f func(*memEntry) bool) {
	var walk func(n *listNode) bool
	walk = func(n *listNode) bool {
		if n == nil {
			return true
		}
		if after != nil && n.key.Compare(*after) <= 0 {
			return walk(n.right)
		}
		return walk(n.left) && f(n.e) && walk(n.right)
	}
	walk(x.root)
}

// indexLocked adds e to the listing index of its owner. Called with m.mu
// held for writing.
func (t *memTenant) indexLocked(e *memEntry) {
	rec := e.rec.Load()
	x := t.lists[rec.Owner]
	if x == nil {
		x = &listIndex{}
		t.lists[rec.Owner] = x
	}
	e.key = CursorOf(rec.Task)
	x.insert(e.key, e)
}

// unindexLocked removes e from the listing index of its owner. Called with
// m.mu held for writing.
func (t *memTenant) unindexLocked(e *memEntry) {
	owner := e.rec.Load().Owner
	if x := t.lists[owner]; x != nil {
		x.remove(e.key)
		if x.len() == 0 {
			delete(t.lists, owner)
		}
	}
}
