"""Card pages (under the language prefix)."""

from django.urls import path

from rulings import views

app_name = "rulings"
urlpatterns = [
    path("cards/", views.card_list, name="cards"),
    path("cards/<slug:slug>/", views.card, name="card"),
]
