"""The shipped ruleset every imported game uses for TripleA's standard battle, and what the
importer writes for it: which unit options become its attributes and tags, the game's die and
the game properties it reads. The battle's rules are in that ruleset (`rulesets/triplea/`), not
here: this module only names what the importer must write and which names it must not take.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from ruleslang.base.paths import packaged_root
from ruleslang.base.source import Source
from ruleslang.lang.syntax.declarations import AdviceDecl, AttributeDecl, CheckDecl, Decl, TagDecl, TestDecl
from ruleslang.lang.syntax.parser import parse_module

BATTLE_FAMILY, BATTLE_NAME, BATTLE_VERSION = "triplea", "battle", 1
BATTLE_RULESET = f"{BATTLE_FAMILY}/{BATTLE_NAME}@{BATTLE_VERSION}"
# The phase of that ruleset that fights the battles (TripleA's BattleDelegate).
BATTLE_PHASE = "battle"

# Numeric unit options the battle ruleset reads: TripleA's option -> the attribute it declares.
BATTLE_NUMBERS = {
    "attack": "attack",
    "defense": "defense",
    "hitPoints": "hit_points",
    "attackRolls": "attack_rolls",
    "defenseRolls": "defense_rolls",
    "bombard": "bombard",
    "attackAA": "attack_aa",
    "offensiveAttackAA": "offensive_attack_aa",
    "maxAAattacks": "max_aa_attacks",
    "transportCapacity": "transport_capacity",
    "transportCost": "transport_cost",
    "carrierCapacity": "carrier_capacity",
    "carrierCost": "carrier_cost",
}

# Boolean unit options the battle ruleset reads: TripleA's option -> the tag it declares.
BATTLE_TAGS = {
    "isAir": "air",
    "isSea": "sea",
    "isSub": "is_sub",
    "isFirstStrike": "is_first_strike",
    "canEvade": "can_evade",
    "isDestroyer": "is_destroyer",
    "artillery": "is_artillery",
    "artillerySupportable": "is_artillery_supportable",
    "canBombard": "can_bombard",
    "isAA": "is_aa",
    "isAAforCombatOnly": "is_aa_for_combat_only",
    "isInfrastructure": "is_infrastructure",
    "isStrategicBomber": "is_strategic_bomber",
}
# The tag of a unit that is neither air nor sea.
LAND_TAG = "land"

# Game properties the battle ruleset reads: TripleA's property -> the boolean constant it declares.
BATTLE_PROPERTIES = {"Submersible Subs": "submersible_subs", "Low Luck": "low_luck",
                     "Low Luck for AntiAircraft": "low_luck_aa"}

# Unit options that change TripleA's battle and that the battle ruleset does not play: the
# importer warns at each (a unit that would fight otherwise than in TripleA, said so).
UNPLAYED_BATTLE_OPTIONS = ("isSuicide", "isSuicideOnAttack", "isSuicideOnDefense", "isSuicideOnHit",
                           "isKamikaze", "isMarine", "canNotTarget", "canNotBeTargetedBy", "typeAA",
                           "targetsAA", "attackAAmaxDieSides", "offensiveAttackAAmaxDieSides",
                           "chooseBestRoll", "canRetreatOnStalemate", "isCombatTransport",
                           # what goes with strategic bombing beyond TripleA's classic raid
                           "isRocket", "canIntercept", "canEscort", "canAirBattle",
                           "canScramble", "isAirBase", "canBeDamaged", "bombingBonus", "bombingMaxDieSides")


def die_lines(sides: int) -> list[str]:
    """The overrides that make the battle roll the game's die (TripleA's `diceSides`)."""
    return [f"# The game's die has {sides} sides (TripleA's diceSides).",
            f"override formula die_roll() -> int = d{sides}",
            f"override constant dice_sides = {sides}"]


@dataclass(frozen=True)
class BattleNames:
    """What the battle ruleset declares, by namespace: tags and attributes have their own (a unit
    type `attack` may coexist with the attribute `attack`), the other names share one."""

    names: frozenset[str]
    tags: frozenset[str]
    attributes: frozenset[str]


@lru_cache(maxsize=1)
def battle_names() -> BattleNames:
    """Every name the battle ruleset declares: an imported ruleset that uses it declares none of
    them again (a unit type or phase of the game file so named is renamed)."""
    path = packaged_root() / BATTLE_FAMILY / f"{BATTLE_NAME}@{BATTLE_VERSION}.rules"
    module = parse_module(Source(str(path), path.read_text(encoding="utf-8")))
    decls = [d for d in module.items if isinstance(d, Decl)
             and not isinstance(d, (TestDecl, AdviceDecl, CheckDecl))]
    return BattleNames(frozenset(d.name.text for d in decls if not isinstance(d, (TagDecl, AttributeDecl))),
                       frozenset(d.name.text for d in decls if isinstance(d, TagDecl)),
                       frozenset(d.name.text for d in decls if isinstance(d, AttributeDecl)))
