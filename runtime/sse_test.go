package runtime

import (
	"errors"
	"io"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
)

func TestSSEReader(t *testing.T) {
	for _, tc := range []struct {
		name   string
		stream string
		want   []string
	}{
		{"one event", "data: a\n\n", []string{"a"}},
		{"no space after the colon", "data:a\n\n", []string{"a"}},
		{"only one space removed", "data:  a\n\n", []string{" a"}},
		{"several events", "data: a\n\ndata: b\n\n", []string{"a", "b"}},
		{"multi-line data joined with LF", "data: a\ndata: b\n\n", []string{"a\nb"}},
		{"CRLF", "data: a\r\n\r\ndata: b\r\n\r\n", []string{"a", "b"}},
		{"comments and other fields ignored", ": keep-alive\nid: 1\nevent: message\nretry: 10\nfoo: bar\ndata: a\n\n", []string{"a"}},
		{"blank lines alone dispatch nothing", "\n\n: c\n\ndata: a\n\n\n\n", []string{"a"}},
		{"event without data ignored", "id: 1\n\ndata: a\n\n", []string{"a"}},
		{"field name alone is an empty value", "data\ndata: a\n\n", []string{"\na"}},
		{"colon inside the value kept", `data: {"a":"b:c"}` + "\n\n", []string{`{"a":"b:c"}`}},
		{"last event without a blank line", "data: a\n\ndata: b", []string{"a", "b"}},
		{"last event ended by one line break", "data: a\n", []string{"a"}},
		{"empty stream", "", nil},
		{"long line", "data: " + strings.Repeat("x", 10000) + "\n\n", []string{strings.Repeat("x", 10000)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, wrap := range []func(io.Reader) io.Reader{
				func(r io.Reader) io.Reader { return r },
				iotest.OneByteReader, // events split across reads
			} {
				r := newSSEReader(wrap(strings.NewReader(tc.stream)), 1<<20)
				var got []string
				for {
					data, err := r.next()
					if errors.Is(err, io.EOF) {
						break
					}
					if err != nil {
						t.Fatal(err)
					}
					got = append(got, string(data))
				}
				if !slices.Equal(got, tc.want) {
					t.Errorf("got %q, want %q", got, tc.want)
				}
			}
		})
	}
}

func TestSSEReaderLimitsEventSize(t *testing.T) {
	for _, stream := range []string{
		"data: " + strings.Repeat("x", 200) + "\n\n",
		strings.Repeat("data: xxxxxxxxxx\n", 20) + "\n",
	} {
		r := newSSEReader(strings.NewReader(stream), 100)
		if _, err := r.next(); !errors.Is(err, errSSETooLarge) {
			t.Errorf("an event over the limit was accepted (%v)", err)
		}
	}
}

func TestSSEReaderPassesReadErrors(t *testing.T) {
	boom := errors.New("boom")
	r := newSSEReader(io.MultiReader(strings.NewReader("data: a\n\ndata: b"), iotest.ErrReader(boom)), 100)
	if data, err := r.next(); err != nil || string(data) != "a" {
		t.Fatalf("first event %q %v", data, err)
	}
	if _, err := r.next(); !errors.Is(err, boom) {
		t.Errorf("got %v, want the read error", err)
	}
}

func TestSSEWriter(t *testing.T) {
	rec := httptest.NewRecorder()
	w := newSSEWriter(rec)
	for _, p := range []string{`{"a":1}`, "x\ny\r\nz", ""} {
		if err := w.writeEvent([]byte(p)); err != nil {
			t.Fatal(err)
		}
	}
	if want := "data: {\"a\":1}\n\ndata: x\ndata: y\ndata: z\n\ndata: \n\n"; rec.Body.String() != want {
		t.Errorf("body %q, want %q", rec.Body.String(), want)
	}
	if !rec.Flushed {
		t.Error("events were not flushed")
	}
	// What the writer wrote, the reader reads back.
	r := newSSEReader(strings.NewReader(rec.Body.String()), 100)
	for _, want := range []string{`{"a":1}`, "x\ny\nz"} {
		if data, err := r.next(); err != nil || string(data) != want {
			t.Errorf("read back %q %v, want %q", data, err, want)
		}
	}
}
