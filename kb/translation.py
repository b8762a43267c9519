"""django-modeltranslation registrations: English and French side by side.

Fallbacks are off for rule and glossary texts: a missing French text must show as missing, never
as the English one. Read and write `text_en` / `text_fr` explicitly.
"""

from modeltranslation.translator import TranslationOptions, register

from kb.models import Example, GlossaryVersion, Release, RuleVersion


@register(Release)
class ReleaseTranslation(TranslationOptions):
    fields = ("set_name",)
    fallback_languages = {"default": ("en",)}


@register(RuleVersion)
class RuleVersionTranslation(TranslationOptions):
    fields = ("text",)
    fallback_languages = {"default": ()}


@register(Example)
class ExampleTranslation(TranslationOptions):
    fields = ("text",)
    fallback_languages = {"default": ()}


@register(GlossaryVersion)
class GlossaryVersionTranslation(TranslationOptions):
    fields = ("text",)
    fallback_languages = {"default": ()}
