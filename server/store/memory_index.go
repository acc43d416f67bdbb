package store

import (
	"math/rand/v2"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
)

// listIndex keeps tasks of one tenant in listing order (Cursor.Compare) so
// that ListTasks walks a page from its cursor instead of scanning and
// sorting the tenant: a treap with subtree sizes, O(log n) per insert,
// delete, seek and rank. Each task is in up to four of them (see listKey),
// so that every filter of a listing walks only the tasks it lists and
// counts them from the subtree sizes. Guarded by Memory.mu.
type listIndex struct {
	root *listNode
}

// listKey names one listing index of a tenant: the tasks of an owner,
// optionally only those of one context and/or in one state. A task with an
// empty context id is only in the indexes without a context (a query
// without a context id does not filter by context).
type listKey struct {
	owner   string
	context string
	state   a2av1.TaskState // TASK_STATE_UNSPECIFIED: any state
}

// listKeys returns the indexes a task of owner in context ctx and state st
// belongs to, and how many of them there are.
func listKeys(owner, ctx string, st a2av1.TaskState) ([4]listKey, int) {
	keys := [4]listKey{{owner: owner}, {owner: owner, state: st}}
	if ctx == "" {
		return keys, 2
	}
	keys[2] = listKey{owner: owner, context: ctx}
	keys[3] = listKey{owner: owner, context: ctx, state: st}
	return keys, 4
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
	return splitWhere(n, func(key Cursor) bool { return key.Compare(k) < 0 })
}

// splitAfter divides n into the keys at or before k and those after k.
func splitAfter(n *listNode, k Cursor) (*listNode, *listNode) {
	return splitWhere(n, func(key Cursor) bool { return key.Compare(k) <= 0 })
}

// splitWhere divides n into the keys for which left holds and those after
// them (left holds for a prefix of the keys in order).
func splitWhere(n *listNode, left func(Cursor) bool) (*listNode, *listNode) {
	if n == nil {
		return nil, nil
	}
	if left(n.key) {
		l, r := splitWhere(n.right, left)
		n.right = l
		n.fix()
		return n, r
	}
	l, r := splitWhere(n.left, left)
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

// insert adds n (a node of no index: its key and entry set) to the index
// (keys are unique: the task id is part of it).
func (x *listIndex) insert(n *listNode) {
	n.left, n.right, n.size = nil, nil, 1
	if n.prio == 0 {
		n.prio = rand.Uint64() | 1
	}
	l, r := split(x.root, n.key)
	x.root = merge(merge(l, n), r)
}

// remove deletes the node under key k and returns it (nil when there is
// none), so that a task that moves reuses its nodes.
func (x *listIndex) remove(k Cursor) *listNode {
	l, r := split(x.root, k)
	n, r := splitAfter(r, k)
	x.root = merge(l, r)
	return n
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

// indexLocked adds e to the listing indexes of its record's owner, context
// and state. Called with m.mu held for writing.
func (t *memTenant) indexLocked(e *memEntry) {
	rec := e.rec.Load()
	e.key = CursorOf(rec.Task)
	e.context, e.state = rec.Task.GetContextId(), rec.Task.GetStatus().GetState()
	keys, n := listKeys(rec.Owner, e.context, e.state)
	for i, k := range keys[:n] {
		x := t.lists[k]
		if x == nil {
			x = &listIndex{}
			t.lists[k] = x
		}
		node := e.nodes[i]
		if node == nil {
			node = &listNode{e: e}
			e.nodes[i] = node
		}
		node.key = e.key
		x.insert(node)
	}
}

// unindexLocked removes e from the listing indexes it was added to (its
// nodes are kept for indexLocked). Called with m.mu held for writing.
func (t *memTenant) unindexLocked(e *memEntry) {
	keys, n := listKeys(e.rec.Load().Owner, e.context, e.state)
	for _, k := range keys[:n] {
		if x := t.lists[k]; x != nil {
			x.remove(e.key)
			if x.len() == 0 {
				delete(t.lists, k)
			}
		}
	}
}
