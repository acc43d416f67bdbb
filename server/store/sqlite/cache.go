package sqlite

import (
	"hash/maphash"
	"sync"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/server/store"
)

// The record cache. Every write to the database goes through this process's
// writer, so the writer can keep a copy of the task rows it writes that is
// exactly what the database holds: after each COMMIT (before the events are
// published and the callers answered) it stores the records the transaction
// wrote, applies renewed leases and new numbers of push configs, and evicts
// what a retention sweep deleted. Task (and so Subscribe's snapshot) then
// needs no SQL for a cached task, and a write of a cached task knows the row
// it replaces (see updateOp.write).
//
// Running tasks (SUBMITTED, WORKING) written by this process stay cached
// until they stop running: the server bounds them. Other records — waiting
// and terminal tasks, and tasks read from the database — are kept in a
// least-recently-used list bounded by count and by encoded size.
//
// A read that misses goes to the database and then offers what it read to
// the cache. The offer is taken only if no write changed that part of the
// cache (its shard) since the read began: a shard's generation counts the
// writer's changes, so a read that raced with a write, which may have read
// the state before it, never overwrites the newer entry or revives a
// deleted task.
//
// The cache does not see writes of another process on the same file; the
// store is for one process per database (see the package documentation).

const (
	cacheShards = 16
	// cacheRecords and cacheBytes bound the least-recently-used part of
	// the cache (over all shards); bytes are of the encoded snapshots.
	cacheRecords = 4096
	cacheBytes   = 32 << 20
)

type cacheKey struct{ tenant, id string }

type cacheEntry struct {
	key    cacheKey
	c      cached
	size   int  // encoded snapshot bytes
	pinned bool // running: not in the LRU list
	prev   *cacheEntry
	next   *cacheEntry
}

type cacheShard struct {
	mu  sync.Mutex
	gen uint64 // writer changes in this shard
	m   map[cacheKey]*cacheEntry
	// lru is the sentinel of the list of unpinned entries, most recently
	// used first.
	lru          cacheEntry
	count, bytes int // of unpinned entries
	maxCount     int
	maxBytes     int
	_            [64]byte // keep shards' locks on separate cache lines
}

// recordCache maps (tenant, task id) to the task's current record.
type recordCache struct {
	seed   maphash.Seed
	off    bool // caches nothing (tests)
	shards [cacheShards]cacheShard
}

// newRecordCache returns a cache keeping up to records unpinned records of
// up to bytes encoded bytes; records == 0 keeps only running tasks, records
// < 0 nothing.
func newRecordCache(records, bytes int) *recordCache {
	c := &recordCache{seed: maphash.MakeSeed(), off: records < 0}
	for i := range c.shards {
		sh := &c.shards[i]
		sh.m = make(map[cacheKey]*cacheEntry)
		sh.lru.prev, sh.lru.next = &sh.lru, &sh.lru
		sh.maxCount = max(records/cacheShards, 0)
		sh.maxBytes = max(bytes/cacheShards, 0)
	}
	return c
}

func (c *recordCache) shard(k cacheKey) *cacheShard {
	return &c.shards[maphash.Comparable(c.seed, k)%cacheShards]
}

// cached is what the cache holds of a task: its row in the tasks table.
type cached struct {
	rec store.Record
	// endedAt is when the task became terminal (unix nanoseconds), for the
	// TTL; ended is false while it is not.
	endedAt int64
	ended   bool
	// pushes is the number of its push configs (the push_count column).
	pushes int64
}

// get returns the cached record of the task, or, on a miss, the shard's
// generation to pass to offer after reading the database.
func (c *recordCache) get(tenant, id string) (hit cached, ok bool, gen uint64) {
	return c.lookup(tenant, id, true)
}

// peek returns the cached record of the task without counting it as used
// (the writer's look at what it is about to change).
func (c *recordCache) peek(tenant, id string) (cached, bool) {
	hit, ok, _ := c.lookup(tenant, id, false)
	return hit, ok
}

// lookup is get, which counts a hit as used (use) and peek, which does not.
func (c *recordCache) lookup(tenant, id string, use bool) (hit cached, ok bool, gen uint64) {
	if c.off {
		return cached{}, false, 0
	}
	k := cacheKey{tenant, id}
	sh := c.shard(k)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	e := sh.m[k]
	if e == nil {
		return cached{}, false, sh.gen
	}
	if use && !e.pinned {
		sh.unlink(e)
		sh.pushFront(e)
	}
	return e.c, true, 0
}

// offer caches a record read from the database, unless the writer changed
// the shard since get returned gen, or the task is cached meanwhile.
func (c *recordCache) offer(gen uint64, id string, v cached, size int) {
	if c.off {
		return
	}
	k := cacheKey{v.rec.Tenant, id}
	sh := c.shard(k)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.gen != gen || sh.m[k] != nil {
		return
	}
	sh.insert(&cacheEntry{key: k, c: v, size: size})
}

// put records the committed row of a task (writer only).
func (c *recordCache) put(v cached, size int) {
	if c.off {
		return
	}
	k := cacheKey{v.rec.Tenant, v.rec.Task.GetId()}
	sh := c.shard(k)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	sh.gen++
	if old := sh.m[k]; old != nil {
		sh.remove(old)
	}
	st := v.rec.Task.GetStatus().GetState()
	pinned := !v.ended && (st == a2av1.TaskState_TASK_STATE_SUBMITTED || st == a2av1.TaskState_TASK_STATE_WORKING)
	sh.insert(&cacheEntry{key: k, c: v, size: size, pinned: pinned})
}

// change applies a committed change of a task's row that leaves its
// version alone (a renewed lease, a new number of push configs) to the
// cached row, if any (writer only).
func (c *recordCache) change(tenant, id string, f func(*cached)) {
	c.written(tenant, id, func(_ *cacheShard, e *cacheEntry) { f(&e.c) })
}

// evict forgets a task the writer deleted.
func (c *recordCache) evict(tenant, id string) {
	c.written(tenant, id, func(sh *cacheShard, e *cacheEntry) { sh.remove(e) })
}

// written runs f on the cached entry of a task the writer changed, if
// any, holding its shard's lock, after moving the shard's generation on
// (so that a read begun before the write does not offer what it read).
func (c *recordCache) written(tenant, id string, f func(*cacheShard, *cacheEntry)) {
	if c.off {
		return
	}
	k := cacheKey{tenant, id}
	sh := c.shard(k)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	sh.gen++
	if e := sh.m[k]; e != nil {
		f(sh, e)
	}
}

// insert adds e (whose key is not in the map) and trims the LRU list.
func (sh *cacheShard) insert(e *cacheEntry) {
	if !e.pinned && (e.size > sh.maxBytes || sh.maxCount == 0) {
		return
	}
	sh.m[e.key] = e
	if e.pinned {
		return
	}
	sh.pushFront(e)
	sh.count++
	sh.bytes += e.size
	for sh.count > sh.maxCount || sh.bytes > sh.maxBytes {
		sh.remove(sh.lru.prev)
	}
}

// remove deletes e from the map and, when unpinned, from the LRU list.
func (sh *cacheShard) remove(e *cacheEntry) {
	delete(sh.m, e.key)
	if !e.pinned {
		sh.unlink(e)
		sh.count--
		sh.bytes -= e.size
	}
}

func (sh *cacheShard) unlink(e *cacheEntry) {
	e.prev.next, e.next.prev = e.next, e.prev
	e.prev, e.next = nil, nil
}

func (sh *cacheShard) pushFront(e *cacheEntry) {
	e.prev, e.next = &sh.lru, sh.lru.next
	sh.lru.next.prev = e
	sh.lru.next = e
}

// len reports the number of cached records (tests).
func (c *recordCache) len() (pinned, unpinned int) {
	for i := range c.shards {
		sh := &c.shards[i]
		sh.mu.Lock()
		pinned += len(sh.m) - sh.count
		unpinned += sh.count
		sh.mu.Unlock()
	}
	return pinned, unpinned
}
