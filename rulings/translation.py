"""English and French card fields (no fallback: a missing French name stays missing)."""

from modeltranslation.translator import TranslationOptions, register

from rulings.models import Card


@register(Card)
class CardTranslation(TranslationOptions):
    fields = ("name", "type_line", "text")
    fallback_languages = {"default": ()}
