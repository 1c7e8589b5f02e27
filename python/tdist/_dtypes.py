"""Element types from their names, numpy's dtypes and torch's, without importing either."""

from ._C import DType, Error, ErrorCode


def invalid(message):
    """A tdist.Error for bad input found in Python, coded as the runtime codes it."""
    error = Error(message)
    error.code = ErrorCode.InvalidParam
    return error

_NAMES = {
    "int8": DType.int8, "int16": DType.int16, "int32": DType.int32, "int64": DType.int64,
    "uint8": DType.uint8, "uint16": DType.uint16, "uint32": DType.uint32, "uint64": DType.uint64,
    "float16": DType.float16, "half": DType.float16, "bfloat16": DType.bfloat16,
    "float32": DType.float32, "float": DType.float32, "float64": DType.float64, "double": DType.float64,
    "i8": DType.int8, "i16": DType.int16, "i32": DType.int32, "i64": DType.int64,
    "u8": DType.uint8, "u16": DType.uint16, "u32": DType.uint32, "u64": DType.uint64,
    "f16": DType.float16, "bf16": DType.bfloat16, "f32": DType.float32, "f64": DType.float64,
}


def dtype_of(dtype):
    """The DType of a DType, a name ("float32", "bf16"), a numpy dtype or scalar type, or a torch
    dtype. Anything else is a tdist.Error naming the types there are."""
    if isinstance(dtype, DType):
        return dtype
    if isinstance(dtype, str):
        name = dtype
    elif hasattr(dtype, "is_floating_point") and str(dtype).startswith("torch."):
        name = str(dtype)[len("torch."):]  # torch.float32, torch.bfloat16, ...
    elif isinstance(getattr(dtype, "name", None), str):
        name = dtype.name  # numpy.dtype
    elif isinstance(getattr(dtype, "__name__", None), str):
        name = dtype.__name__  # numpy.float32, ...
    else:
        name = repr(dtype)
    found = _NAMES.get(name)
    if found is None:
        known = ", ".join(member.name for member in DType)
        raise invalid(f"tdist: no element type {name!r} on the symmetric heap (there are {known})")
    return found
