package main

import (
	"regexp"
	"strconv"
	"strings"
)

// trip is what a request asks about: a city and a number of days.
type trip struct {
	city string // as known to cities, e.g. "Lisbon"
	days int
}

// daysPattern finds "3 days", "for 2 days", "5-day".
var daysPattern = regexp.MustCompile(`(?i)\b(\d{1,2})[ -]days?\b`)

// parseTrip reads a trip from text such as "3 days in Lisbon" or "Kyoto for
// 2 days". It reports false when the text names no city the agent knows;
// the number of days defaults to 2 and is capped at 7.
func parseTrip(text string) (trip, bool) {
	t := trip{days: 2}
	if m := daysPattern.FindStringSubmatch(text); m != nil {
		t.days, _ = strconv.Atoi(m[1])
	}
	t.days = min(max(t.days, 1), 7)
	lower := strings.ToLower(text)
	for name := range cities {
		if strings.Contains(lower, strings.ToLower(name)) {
			t.city = name
			return t, true
		}
	}
	return t, false
}

// city is what the agent knows about a destination.
type city struct {
	sights  []string
	climate string // "warm", "mild" or "cold"
}

// cities are the destinations the agent knows.
var cities = map[string]city{
	"Lisbon": {climate: "warm", sights: []string{"Alfama and the castle", "Belém tower and pastéis", "a tram 28 ride", "LX Factory", "a day trip to Sintra"}},
	"Kyoto":  {climate: "mild", sights: []string{"Fushimi Inari at dawn", "the Arashiyama bamboo grove", "Gion in the evening", "Kinkaku-ji", "Nishiki market"}},
	"Oslo":   {climate: "cold", sights: []string{"the Opera house roof", "the Viking ship museum", "Vigeland park", "a fjord boat", "Munch museum"}},
	"Porto":  {climate: "mild", sights: []string{"Ribeira", "a port cellar in Gaia", "Livraria Lello", "the Douro valley"}},
}

// knownCities lists the destinations for messages that name none.
func knownCities() string {
	return "Kyoto, Lisbon, Oslo or Porto"
}
