package postgres

import (
	"testing"

	"github.com/a2agen/a2agen/server/store"
	"github.com/a2agen/a2agen/server/storetest"
)

func TestConformance(t *testing.T) {
	url := testURL(t)
	storetest.Run(t, func(t *testing.T) store.Store { return openSchema(t, url, testSchema(t, url)) })
}
