"""The API's shared parameter and error types, public so that other apps' routers (rulings,
the site search) state them the same way: the `lang` and `release` parameters, the error body,
and the release a token names as a JSON 400/404."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

from ninja import Schema
from ninja.errors import HttpError
from pydantic import Field

from config import languages
from kb import selectors
from kb.models import Release

#: The `lang` parameter: one of the site's languages (an enum in the OpenAPI schema; another
#: value answers 400 like any malformed parameter).
LanguageCode = StrEnum("LanguageCode", {code: code for code in languages.CODES})
SOURCE_LANGUAGE = LanguageCode(languages.SOURCE)

#: A `release` parameter as the OpenAPI schema states it: `current` or a date (YYYY-MM-DD;
#: days after the 28th of February aside, the pattern admits only real dates), read by
#: selectors.release_for (400 for anything else, 404 for a date before the first release).
#: A string in Python: the token is read in one place (its messages; a leap day).
RELEASE_PATTERN = (
    "^(current|(?!0000)[0-9]{4}-("
    "(0[13578]|1[02])-(0[1-9]|[12][0-9]|3[01])|(0[469]|11)-(0[1-9]|[12][0-9]|30)"
    "|02-(0[1-9]|1[0-9]|2[0-8])))$"
)
ReleaseToken = Annotated[
    str,
    Field(
        description="`current`, an effective date or any date (YYYY-MM-DD): the release in "
        "force on it",
        json_schema_extra={"pattern": RELEASE_PATTERN},  # stated, not checked here
    ),
]


class ErrorOut(Schema):
    detail: str


def resolve_release(token: str, releases: selectors.Releases | None = None) -> Release:
    """The release a token names (current, a date, any date), or a JSON 400/404."""
    try:
        return selectors.release_for(token, releases or selectors.Releases.load())
    except selectors.BadRelease as exc:
        raise HttpError(400, str(exc)) from None
    except selectors.NoRelease as exc:
        if exc.date is None and exc.first is not None:
            message = f"no release in force yet: the first takes effect on {exc.first}"
            raise HttpError(404, message) from None
        raise HttpError(404, f"no release in force on {token}") from None
