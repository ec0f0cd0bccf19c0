"""The composer's model picker choices: a pure function of the provider and model lists."""

from pidesktop.ui.chat.model_choices import chip_text, model_choices

LISTED = {
    "defaultProviderId": "p1",
    "defaultModelId": "m-typed",
    "providers": [
        {"id": "p1", "name": "Local", "enabled": True, "defaultModelId": "m-typed"},
        {"id": "p2", "name": "Off one", "enabled": False, "defaultModelId": "x"},
        {"id": "p3", "name": "Cloud", "defaultModelId": "c1"},
    ],
}
MODELS = [
    {"providerId": "p1", "modelId": "m1", "displayName": "Model One"},
    {"providerId": "p2", "modelId": "x", "displayName": None},
    {"providerId": "p3", "modelId": "c1", "displayName": None},
]


def test_enabled_providers_models_then_typed_defaults_once():
    assert model_choices(LISTED, MODELS) == [
        ("p1", "m1", "Local · Model One"),
        ("p3", "c1", "Cloud · c1"),
        ("p1", "m-typed", "Local · m-typed"),  # typed in Settings, not in the catalogue
    ]


def test_disabled_providers_offer_nothing():
    assert all(provider != "p2" for provider, _model, _label in model_choices(LISTED, MODELS))


def test_nothing_listed_offers_nothing():
    assert model_choices({"providers": []}, []) == []


def test_chip_names_the_default_or_the_offline_demo():
    assert chip_text(LISTED, "Offline") == "Local · m-typed"
    assert chip_text({"defaultProviderId": "offline", "providers": []}, "Offline") == "Offline"
    assert chip_text({"defaultProviderId": "p3", "providers": LISTED["providers"]}, "Offline") == "Cloud"


def test_recently_used_models_come_first_newest_first_and_gone_ones_are_not_offered():
    recent = [
        {"providerId": "p1", "modelId": "m-typed"},
        {"providerId": "p2", "modelId": "x"},  # its provider is switched off
        {"providerId": "p3", "modelId": "c1"},
        {"providerId": "p9", "modelId": "gone"},
    ]
    assert model_choices(LISTED, MODELS, recent) == [
        ("p1", "m-typed", "Local · m-typed"),
        ("p3", "c1", "Cloud · c1"),
        ("p1", "m1", "Local · Model One"),
    ]
