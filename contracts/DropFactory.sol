// SPDX-License-Identifier: MIT
pragma solidity 0.8.24;

import {Create2} from "@openzeppelin/contracts/utils/Create2.sol";
import {IDropERC721} from "./IDropERC721.sol";
import {DropArgs} from "./drop/DropArgs.sol";

/// @title Creates Mintyard drops as CREATE2 clones of one DropERC721 implementation.
/// @notice A drop's code is the standard 45-byte EIP-1167 proxy followed by its immutable
/// args (byte for byte what OpenZeppelin's `Clones.cloneDeterministicWithImmutableArgs`
/// deploys). Its address depends only on the factory, the deployer and the salt: the
/// CREATE2 initcode is a fixed 14-byte stub that fetches the runtime code from this factory,
/// so the args (name, base URI...) don't enter the address and `predictAddress` needs no
/// parameters. The salt is bound to msg.sender, so nobody can take another deployer's address.
contract DropFactory {
    /// The CREATE2 initcode: STATICCALL the caller (this factory) with empty calldata and
    /// return whatever it answers as the new contract's code.
    ///   PUSH0 PUSH0 PUSH0 PUSH0 CALLER GAS STATICCALL
    ///   RETURNDATASIZE PUSH0 PUSH0 RETURNDATACOPY RETURNDATASIZE PUSH0 RETURN
    bytes private constant _STUB = hex"5f5f5f5f335afa3d5f5f3e3d5ff3";
    bytes32 public constant STUB_HASH = keccak256(_STUB);

    address public immutable implementation;

    event DropCreated(address indexed drop, address indexed owner, address indexed deployer, bytes32 salt);

    error DeploymentFailed();
    error NothingStaged();

    constructor(address implementation_) {
        implementation = implementation_;
    }

    /// Creates and initialises a drop in one transaction. Reverts if this deployer already
    /// used `salt`.
    function createDrop(bytes32 salt, IDropERC721.InitParams calldata params) external returns (address drop) {
        _stage(
            abi.encodePacked(
                hex"363d3d373d3d3d363d73", implementation, hex"5af43d82803e903d91602b57fd5bf3", DropArgs.encode(params)
            )
        );
        bytes memory stub = _STUB;
        bytes32 effectiveSalt = _effectiveSalt(msg.sender, salt);
        assembly ("memory-safe") {
            drop := create2(0, add(stub, 32), mload(stub), effectiveSalt)
        }
        assembly ("memory-safe") {
            tstore(0, 0)
        }
        if (drop == address(0) || drop.code.length == 0) revert DeploymentFailed();
        IDropERC721(drop).initialize(params);
        emit DropCreated(drop, params.owner, msg.sender, salt);
    }

    /// The address `createDrop(salt, ...)` gives when sent by `deployer`.
    function predictAddress(address deployer, bytes32 salt) external view returns (address) {
        return Create2.computeAddress(_effectiveSalt(deployer, salt), STUB_HASH);
    }

    /// Serves the staged runtime code to the stub while a createDrop is running.
    fallback() external {
        uint256 length;
        assembly ("memory-safe") {
            length := tload(0)
        }
        if (length == 0) revert NothingStaged();
        // Plain assembly (not memory-safe): it overwrites memory from 0, then returns at once.
        assembly {
            for { let i := 0 } lt(i, length) { i := add(i, 32) } { mstore(i, tload(add(1, shr(5, i)))) }
            return(0, length)
        }
    }

    /// Keeps the code in transient storage: slot 0 = length, slots 1.. = its 32-byte words.
    function _stage(bytes memory code) private {
        assembly ("memory-safe") {
            let length := mload(code)
            tstore(0, length)
            for { let i := 0 } lt(i, length) { i := add(i, 32) } { tstore(add(1, shr(5, i)), mload(add(add(code, 32), i))) }
        }
    }

    function _effectiveSalt(address deployer, bytes32 salt) private pure returns (bytes32) {
        return keccak256(abi.encode(deployer, salt));
    }
}
