"""Numbers printed as Java prints them: ``Float.toString`` and ``Double.toString``.

Common Crawl's ``cc-webgraph`` writes the ranks files' values with Java's formatters
(FORMATS.md §1.4): the shortest digits that round-trip, plain notation from 10^-3 up to 10^7
(``0.00538``, ``34626736.0``), computerised scientific notation outside it (``3.4626736E7``,
``3.79E-4``), always with a digit after the point. ``java_float_str`` / ``java_double_str``
format one value; ``java_float_strs`` / ``java_double_strs`` format arrays (the shortest digits
from Arrow's cast, only the layout respelled here), for the ranks files of ``demo.webgraph``
and the benchmark inputs of ``demo.bench_inputs``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from decimal import ROUND_CEILING, ROUND_FLOOR, Context, Decimal

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

__all__ = ["java_double_str", "java_double_strs", "java_float_str", "java_float_strs"]


def _digits_and_exponent(text: str) -> tuple[str, int]:
    """Split a non-negative decimal literal into significant digits and a scientific exponent.

    Args:
        text: a finite, non-negative literal such as ``"0.00538"``, ``"1e-05"``, ``"34626736.0"``
            or ``"3.4626736e+07"``.

    Returns:
        ``(digits, exponent)`` with no leading or trailing zeros in ``digits`` such that the value
        is ``digits[0].digits[1:] × 10**exponent``; ``("", 0)`` for zero.
    """
    mantissa, _, exp_text = text.lower().partition("e")
    exponent = int(exp_text) if exp_text else 0
    int_part, _, frac_part = mantissa.partition(".")
    all_digits = int_part + frac_part
    point = len(int_part) + exponent  # value = 0.<all_digits> × 10**point
    stripped = all_digits.lstrip("0")
    point -= len(all_digits) - len(stripped)
    digits = stripped.rstrip("0")
    if not digits:
        return "", 0
    return digits, point - 1


def _java_layout(negative: bool, digits: str, exponent: int) -> str:
    """Lay out shortest digits the way Java's ``Float/Double.toString`` does.

    Args:
        negative: whether to print a leading minus sign.
        digits: significant digits without leading or trailing zeros (empty for zero).
        exponent: scientific exponent, the value being ``digits[0].digits[1:] × 10**exponent``.

    Returns:
        Plain decimal notation with at least one fractional digit when ``1e-3 <= |v| < 1e7``,
        otherwise computerized scientific notation ``d.dddE<n>``.
    """
    sign = "-" if negative else ""
    if not digits:
        return sign + "0.0"
    if -3 <= exponent < 7:
        if exponent >= 0:
            int_part = digits[: exponent + 1].ljust(exponent + 1, "0")
            frac_part = digits[exponent + 1 :] or "0"
            return f"{sign}{int_part}.{frac_part}"
        return f"{sign}0.{'0' * (-exponent - 1)}{digits}"
    return f"{sign}{digits[0]}.{digits[1:] or '0'}E{exponent}"


def _two_digit_choice(
    magnitude: float, digits: str, exponent: int, round_trips: Callable[[Decimal], bool]
) -> tuple[str, int]:
    """Apply Java's rule for values whose shortest decimal has a single digit.

    Java (JDK 19+) then picks, among the decimals of length 1 *or 2* that round to the value, the
    one closest to it. This only changes the result for subnormals, e.g. ``Float.MIN_VALUE``
    prints ``1.4E-45`` where the shortest decimal is ``1E-45``.

    Args:
        magnitude: the absolute value (exactly representable as a Python float).
        digits: the shortest digits found (length 1).
        exponent: their scientific exponent.
        round_trips: whether a decimal parses back to the value in the target format.

    Returns:
        ``(digits, exponent)`` of the decimal Java prints.
    """
    exact = Decimal(magnitude)
    best: tuple[Decimal, Decimal, tuple[str, int]] | None = None
    for rounding in (ROUND_FLOOR, ROUND_CEILING):
        candidate = Context(prec=2, rounding=rounding).plus(exact)
        if not round_trips(candidate):
            continue
        cand_digits, cand_exp = _digits_and_exponent(str(candidate))
        distance = abs(candidate - exact)
        parity = Decimal(int(cand_digits[-1]) % 2)  # prefer an even last digit on a tie
        if best is None or (distance, parity) < best[:2]:
            best = (distance, parity, (cand_digits, cand_exp))
    return best[2] if best is not None else (digits, exponent)


_F32_MIN_NORMAL = float(np.finfo(np.float32).tiny)
_F64_MIN_NORMAL = float(np.finfo(np.float64).tiny)
_F32_PLAIN_LOW = float(np.float32(1e-3))  # smallest float32 whose shortest decimal is >= 0.001
_PLAIN_HIGH = 1e7


def _float32_round_trips(candidate: Decimal, target: np.float32) -> bool:
    """Whether a decimal parses back to ``target`` as a float32.

    Args:
        candidate: the decimal to parse.
        target: the float32 it must denote.

    Returns:
        True when ``np.float32(float(candidate)) == target``.
    """
    return bool(np.float32(float(candidate)) == target)


def _float32_generic(magnitude: np.float32) -> str:
    """Java text of a positive finite float32, by the general digits-then-layout route.

    Args:
        magnitude: a positive, finite float32.

    Returns:
        Java ``Float.toString`` text.
    """
    digits, exponent = _digits_and_exponent(
        np.format_float_scientific(magnitude, unique=True, trim="-")
    )
    if len(digits) == 1:
        digits, exponent = _two_digit_choice(
            float(magnitude), digits, exponent, lambda c: _float32_round_trips(c, magnitude)
        )
    return _java_layout(False, digits, exponent)


def _float32_fast(magnitude: np.float32) -> str:
    """Java text of a positive finite float32, using numpy's layouts where they match Java's.

    For normal values the one-digit rule of :func:`_two_digit_choice` never changes the digits, and
    numpy's ``trim='0'`` layouts are Java's once the exponent is respelled.

    Args:
        magnitude: a positive, finite float32.

    Returns:
        Java ``Float.toString`` text (same as :func:`_float32_generic`).
    """
    value = float(magnitude)
    if value < _F32_MIN_NORMAL:
        return _float32_generic(magnitude)
    if _F32_PLAIN_LOW <= value < _PLAIN_HIGH:
        return np.format_float_positional(magnitude, unique=True, trim="0")
    text = np.format_float_scientific(magnitude, unique=True, trim="0", exp_digits=1)
    return text.replace("e+", "E").replace("e-", "E-")


def _double_generic(magnitude: float) -> str:
    """Java text of a positive finite double, by the general digits-then-layout route.

    Args:
        magnitude: a positive, finite double.

    Returns:
        Java ``Double.toString`` text.
    """
    digits, exponent = _digits_and_exponent(repr(magnitude))
    if len(digits) == 1:
        digits, exponent = _two_digit_choice(
            magnitude, digits, exponent, lambda c: float(c) == magnitude
        )
    return _java_layout(False, digits, exponent)


def _double_fast(magnitude: float) -> str:
    """Java text of a positive finite double, reusing Python's ``repr`` layout where it matches.

    ``repr`` is positional with a fractional digit for ``1e-4 <= v < 1e16`` and scientific
    otherwise, so Java's plain range needs no change and ``repr``'s scientific form only needs its
    exponent respelled.

    Args:
        magnitude: a positive, finite double.

    Returns:
        Java ``Double.toString`` text (same as :func:`_double_generic`).
    """
    if magnitude < _F64_MIN_NORMAL:
        return _double_generic(magnitude)
    text = repr(magnitude)
    if 1e-3 <= magnitude < _PLAIN_HIGH:
        return text
    mantissa, marker, exp_text = text.partition("e")
    if not marker:
        return _double_generic(magnitude)
    if "." not in mantissa:
        mantissa += ".0"
    return f"{mantissa}E{int(exp_text)}"


def _java_special(value: float, negative: bool) -> str | None:
    """Java text for NaN, infinities and zeros.

    Args:
        value: the number.
        negative: its sign bit.

    Returns:
        The text, or None when ``value`` is finite and non-zero.
    """
    if value != value:
        return "NaN"
    if value in (float("inf"), float("-inf")):
        return "-Infinity" if negative else "Infinity"
    if value == 0.0:
        return "-0.0" if negative else "0.0"
    return None


def java_float_str(value: float) -> str:
    """Format a number like Java 19+ ``Float.toString`` of the float32 nearest to it.

    Args:
        value: any real number; it is first rounded to the nearest float32.

    Returns:
        The shortest decimal that round-trips to the float32, e.g. ``"3.4626736E7"``, ``"100.0"``,
        ``"0.001"``, ``"1.0E-4"``.
    """
    with np.errstate(over="ignore"):  # beyond the float32 range is Infinity, as in Java
        f32 = np.float32(value)
    negative = bool(np.signbit(f32))
    special = _java_special(float(f32), negative)
    if special is not None:
        return special
    text = _float32_fast(np.abs(f32))
    return "-" + text if negative else text


def java_double_str(value: float) -> str:
    """Format a number like Java 19+ ``Double.toString``.

    Args:
        value: a double.

    Returns:
        The shortest decimal that round-trips (Python's ``repr`` digits) in Java layout, e.g.
        ``"0.005384977821460953"``, ``"3.794876113587071E-4"``, ``"1.0E7"``.
    """
    number = float(value)
    negative = math.copysign(1.0, number) < 0
    special = _java_special(number, negative)
    if special is not None:
        return special
    text = _double_fast(abs(number))
    return "-" + text if negative else text


def _java_layout_of_shortest(text: str, plain: bool) -> str:
    """Respell a positive number's shortest decimal (as Arrow prints it) in Java's layout.

    Arrow's float-to-string cast prints the shortest round-tripping digits, positionally from
    1e-6 up to 1e21 (without a trailing ``.0`` for whole numbers) and as ``2.5e-9`` outside.

    Args:
        text: Arrow's text of a positive, finite, normal value.
        plain: whether Java prints the value positionally (``1e-3 <= v < 1e7``).

    Returns:
        Java ``Float/Double.toString`` text.
    """
    if plain:
        return text if "." in text else text + ".0"
    mantissa, marker, exponent = text.partition("e")
    if marker:
        return f"{mantissa if '.' in mantissa else mantissa + '.0'}E{int(exponent)}"
    integer, _, fraction = text.partition(".")
    if integer != "0":  # at least 1e7
        digits = (integer + fraction).rstrip("0")
        power = len(integer) - 1
    else:  # below 1e-3
        significant = fraction.lstrip("0")
        power = -(len(fraction) - len(significant) + 1)
        digits = significant.rstrip("0")
    return f"{digits[0]}.{digits[1:] or '0'}E{power}"


def _java_strs(values: np.ndarray, single: bool) -> list[str]:
    """Format many numbers like :func:`java_float_str` (single) or :func:`java_double_str`.

    The shortest digits come from Arrow's C++ float-to-string cast (shortest round-trip, for
    float32 in single precision); only the layout is respelled here. Zeros, subnormals,
    negatives and non-finite values take the per-value route.

    Args:
        values: 1-D array of numbers.
        single: format as float32 (Java ``Float``) rather than double.

    Returns:
        One string per element, in order.
    """
    numbers = np.asarray(values).astype(np.float32 if single else np.float64).ravel()
    if numbers.size == 0:
        return []
    tiny = np.finfo(numbers.dtype).tiny
    low = np.float32(_F32_PLAIN_LOW) if single else 1e-3
    with np.errstate(invalid="ignore"):
        regular = np.isfinite(numbers) & (numbers >= tiny)
        plain = regular & (numbers >= low) & (numbers < _PLAIN_HIGH)
    shortest = pc.cast(pa.array(numbers), pa.string()).to_pylist()
    formatter = java_float_str if single else java_double_str
    return [
        _java_layout_of_shortest(text, is_plain) if is_regular else formatter(float(number))
        for text, is_regular, is_plain, number in zip(
            shortest, regular.tolist(), plain.tolist(), numbers.tolist(), strict=True
        )
    ]


def java_float_strs(values: np.ndarray) -> list[str]:
    """Format many numbers like :func:`java_float_str`."""
    return _java_strs(values, single=True)


def java_double_strs(values: np.ndarray) -> list[str]:
    """Format many numbers like :func:`java_double_str`."""
    return _java_strs(values, single=False)
